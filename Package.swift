// swift-tools-version:6.0
import PackageDescription

// One module per concern; docs/internals.md (Layout) says what each owns. Linux only (inotify,
// /proc, Glibc's stat and fadvise): Sources/Basics/Platform.swift stops a build elsewhere.
let package = Package(
    name: "pipeline",
    products: [
        .executable(name: "pipeline", targets: ["pipeline"]),
    ],
    targets: [
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // Declarations only: libvips is loaded by the local engine when first needed (see its shim).
        .systemLibrary(name: "CVips"),
        // Declarations only: libpq is loaded when a Postgres state is first used (see its shim).
        .systemLibrary(name: "CPostgres"),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // Linux calls Swift's Glibc module leaves out: passing open files over a Unix socket, copy_file_range.
        .target(name: "CLinux"),
        .target(name: "Basics", dependencies: ["CLinux"]),
        .target(name: "Crypto", dependencies: ["Basics", "COpenSSL", "CDeflate"]),
        .target(name: "YAML", dependencies: ["CYAML", "Basics"]),
        .target(name: "Spec", dependencies: ["YAML", "Wire", "Basics"]),
        .target(name: "Planning", dependencies: ["Spec", "Basics", "Crypto"]),
        .target(name: "Wire", dependencies: ["Basics", "Crypto"]),
        .target(name: "HTTPClient", dependencies: ["CCurl", "Wire", "Crypto", "Basics"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CLinux", "Wire", "Basics"]),
        .target(name: "Postgres", dependencies: ["CPostgres", "Basics"]),
        // The Assembly, tus and Template API clients, apart from the runner (the signer uses them too).
        .target(name: "APIClients", dependencies: ["HTTPClient", "Wire", "Crypto", "Basics"]),
        .target(name: "Client", dependencies: ["APIClients", "HTTPClient", "Wire", "Crypto", "Planning", "Spec", "Basics"]),
        .target(name: "Engine", dependencies: ["APIClients", "HTTPServer", "HTTPClient", "Wire", "Crypto", "Spec", "Basics", "CVips", "CArchive", "Postgres"]),
        .target(name: "Signer", dependencies: ["APIClients", "HTTPClient", "HTTPServer", "Wire", "Crypto", "Spec", "YAML", "Basics"]),
        .target(name: "CLI", dependencies: ["Spec", "YAML", "Planning", "Basics", "Crypto", "HTTPClient", "APIClients", "Client", "Engine", "HTTPServer", "Signer", "Wire", "CZlib"]),
        .executableTarget(name: "pipeline", dependencies: ["CLI"]),
        .target(name: "FuzzTargets", dependencies: ["Spec", "Basics", "Wire", "HTTPClient", "HTTPServer"]),

        .target(name: "TestProcess", path: "Tests/TestProcess"),
        .target(name: "TestSupport", dependencies: ["Basics", "TestProcess"], path: "Tests/TestSupport"),
        .target(name: "EngineTestSupport", dependencies: ["TestSupport", "Engine", "HTTPServer", "Spec"], path: "Tests/EngineTestSupport"),
        .testTarget(name: "BasicsTests", dependencies: ["Basics", "TestSupport"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto", "TestSupport"]),
        .testTarget(name: "YAMLTests", dependencies: ["YAML", "TestSupport", "Basics"]),
        .testTarget(name: "SpecTests", dependencies: ["Spec", "YAML", "TestSupport", "Basics"], exclude: ["Manifest/Fixtures"]),
        .testTarget(name: "PlanningTests", dependencies: ["Planning", "Spec", "TestSupport", "Basics", "Crypto"]),
        .testTarget(name: "WireTests", dependencies: ["Wire", "TestSupport", "Basics"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "TestSupport", "Wire"], exclude: ["Fixtures"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTPClient", "TestSupport"]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "TestSupport", "Basics"]),
        .testTarget(name: "APIClientsTests", dependencies: ["APIClients", "HTTPClient", "HTTPServer", "Wire", "TestSupport", "EngineTestSupport", "Basics"],
                    exclude: ["Tus/Fixtures"]),
        .testTarget(name: "ClientTests", dependencies: ["Client", "APIClients", "HTTPClient", "HTTPServer", "Wire", "TestSupport", "EngineTestSupport", "Basics", "Planning"],
                    exclude: ["Signing/Fixtures", "Executor/Fixtures"]),
        .testTarget(name: "EngineTests", dependencies: ["Engine", "Postgres", "HTTPClient", "APIClients", "Client", "Crypto", "Wire", "TestSupport", "EngineTestSupport", "Basics", "Spec"], exclude: ["Fixtures"]),
        .testTarget(name: "SignerTests", dependencies: ["Signer", "HTTPServer", "HTTPClient", "Wire", "Spec", "TestSupport", "Basics"], exclude: ["Fixtures"]),
        .testTarget(name: "FuzzTargetsTests", dependencies: ["FuzzTargets"]),
        .testTarget(name: "CLITests", dependencies: ["CLI", "pipeline", "YAML", "TestSupport", "EngineTestSupport", "Basics", "APIClients", "Client", "Crypto", "Wire"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

// `make fuzz` builds the libFuzzer executable (scripts/fuzz.sh sets PIPELINE_FUZZ and the fuzzer flags).
if Context.environment["PIPELINE_FUZZ"] != nil {
    package.targets.append(.executableTarget(name: "pipeline-fuzz", dependencies: ["FuzzTargets"], path: "Fuzz/Driver"))
}
