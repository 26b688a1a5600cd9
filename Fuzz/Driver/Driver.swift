import Foundation
import FuzzTargets

/// The fuzz target named by `$FUZZ_TARGET` (manifest, policy, json, tus-headers, form).
let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        FileHandle.standardError.write(Data("set FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
        exit(64)
    }
    return target
}()

/// libFuzzer's entry point: one input through the target; a failed property aborts, so
/// libFuzzer keeps the input as a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    if !target.run(data) { abort() }
    return 0
}

/// libFuzzer's driver, run from the entry point SwiftPM gives executables.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafeRawPointer?, Int) -> CInt
) -> CInt

/// SwiftPM links an executable's `main` to `<module>_main`; it hands over to libFuzzer.
@_cdecl("pipeline_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { start, size in fuzzOneInput(start, size) }
}
