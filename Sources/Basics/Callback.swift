/// A function kept by reference, for a `Mutex` to hold. A function value held by a `Mutex`
/// directly gains two conversion thunks each time `withLock` hands it out (read out, and written
/// back through the `inout`), until calling it overflows the stack: the engine's end observer
/// did, after about ten thousand Assemblies in one process.
public final class Callback<Input>: Sendable {
    private let function: @Sendable (Input) -> Void

    /// Keeps `function`.
    public init(_ function: @escaping @Sendable (Input) -> Void) { self.function = function }

    /// Calls the function with `input`.
    public func callAsFunction(_ input: Input) { function(input) }
}
