// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "pipeline",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pipeline", targets: ["pipeline"]),
    ],
    targets: [
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        .target(name: "PipelineCore", dependencies: ["COpenSSL"]),
        .target(name: "YAML", dependencies: ["CYAML", "PipelineCore"]),
        .target(name: "Manifest", dependencies: ["YAML", "PipelineCore"]),
        .target(name: "Policy", dependencies: ["YAML", "PipelineCore"]),
        .target(name: "Planner", dependencies: ["Manifest", "Policy", "PipelineCore", "COpenSSL"]),
        .target(name: "HTTP", dependencies: ["CCurl"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "HTTP"]),
        .target(name: "Tus", dependencies: ["HTTP", "PipelineCore", "COpenSSL"]),
        .target(name: "Signing", dependencies: ["HTTP", "PipelineCore", "COpenSSL"]),
        .target(name: "Engine", dependencies: ["HTTPServer", "HTTP", "Tus", "PipelineCore", "COpenSSL", "CVips", "Signing", "Policy"]),
        .target(name: "Assembly", dependencies: ["HTTP", "PipelineCore"]),
        .target(name: "Executor", dependencies: ["Assembly", "Tus", "HTTP", "Signing", "Planner", "Manifest", "PipelineCore"]),
        .target(name: "SignerServer", dependencies: ["HTTPServer", "Policy", "Signing", "YAML", "PipelineCore", "COpenSSL"]),
        .target(name: "PipelineCLI", dependencies: ["Manifest", "Policy", "Planner", "PipelineCore", "HTTP", "Tus", "Signing", "Engine", "HTTPServer", "Executor", "SignerServer"]),
        .executableTarget(name: "pipeline", dependencies: ["PipelineCLI"]),
        .target(name: "FuzzTargets", dependencies: ["Manifest", "Policy", "PipelineCore", "Tus", "HTTP", "HTTPServer"]),

        .target(name: "TestSupport", dependencies: ["PipelineCore", "Engine", "HTTPServer"], path: "Tests/TestSupport"),
        .testTarget(name: "PipelineCoreTests", dependencies: ["PipelineCore", "TestSupport"]),
        .testTarget(name: "YAMLTests", dependencies: ["YAML", "TestSupport"]),
        .testTarget(name: "ManifestTests", dependencies: ["Manifest", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "PolicyTests", dependencies: ["Policy", "YAML", "TestSupport"]),
        .testTarget(name: "PlannerTests", dependencies: ["Planner", "Manifest", "Policy", "TestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTP", "TestSupport"]),
        .testTarget(name: "TusTests", dependencies: ["Tus", "HTTP", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "SigningTests", dependencies: ["Signing", "HTTP", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "EngineTests", dependencies: ["Engine", "HTTP", "Tus", "Signing", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "SignerServerTests", dependencies: ["SignerServer", "HTTPServer", "HTTP", "Signing", "Policy", "TestSupport"]),
        .testTarget(name: "FuzzTargetsTests", dependencies: ["FuzzTargets"]),
        .testTarget(name: "PipelineCLITests", dependencies: ["PipelineCLI", "pipeline", "TestSupport"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

// `make fuzz` builds the libFuzzer executable (scripts/fuzz.sh sets PIPELINE_FUZZ and the fuzzer flags).
if Context.environment["PIPELINE_FUZZ"] != nil {
    package.targets.append(.executableTarget(name: "pipeline-fuzz", dependencies: ["FuzzTargets"], path: "Fuzz/Driver"))
}
