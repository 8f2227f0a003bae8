// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

/// The traits an app that depends on Courier gets by default: every product's.
let libraryTraits: Set<String> = ["AsyncHTTPClient", "Macros", "Signing", "Metrics", "Tracing", "Combine", "Dependencies", "OpenAPI"]

/// Whether this manifest is read as another package's dependency: while SwiftPM resolves, it
/// reads a dependency's manifest at each candidate version straight from its clone's git objects
/// (the package directory is then `/`); afterwards from its checkout (`.build/checkouts/…`,
/// Xcode's `SourcePackages/checkouts/…`) or a registry download (`…/registry/downloads/…`) —
/// never from where Courier's own clone is. Only then are
/// the development tools off by default, so an app that copies the README's manifest resolves
/// none of the packages only Courier's demo, benchmark and tests use (Hummingbird,
/// swift-certificates, swift-property-based, swift-macro-testing…), while `swift test` and
/// `swift run courier-demo` in a clone of Courier work as written. SwiftPM has no "dev
/// dependencies" and no trait that is on only for the root package; this is that rule.
let isDependencyCheckout = Context.packageDirectory == "/"
    || ["/checkouts/", "/registry/downloads/"].contains { Context.packageDirectory.contains($0) }

let package = Package(
    name: "Courier",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierURLSession", targets: ["CourierURLSession"]),
        .library(name: "CourierAsyncHTTPClient", targets: ["CourierAsyncHTTPClient"]),
        .library(name: "CourierTesting", targets: ["CourierTesting"]),
        .library(name: "CourierMacros", targets: ["CourierMacros"]),
        .library(name: "CourierSigning", targets: ["CourierSigning"]),
        .library(name: "CourierMetrics", targets: ["CourierMetrics"]),
        .library(name: "CourierTracing", targets: ["CourierTracing"]),
        .library(name: "CourierCombine", targets: ["CourierCombine"]),
        .library(name: "CourierDependencies", targets: ["CourierDependencies"]),
        .library(name: "CourierOpenAPI", targets: ["CourierOpenAPI"]),
        .executable(name: "courier-demo", targets: ["CourierDemo"]),
        .executable(name: "courier-bench", targets: ["CourierBench"]),
    ],
    // Every third-party product but the core's three sits behind a trait. The library traits are
    // on by default (and DevelopmentTools too in Courier's own clone: see isDependencyCheckout);
    // an app that wants only the core and a URLSession transport depends with `traits: []` and
    // resolves swift-http-types, swift-openapi-runtime and swift-log alone (CI checks both:
    // `.ci/consumer-footprint`).
    traits: [
        .trait(name: "AsyncHTTPClient", description: "CourierAsyncHTTPClient: the SwiftNIO transport (async-http-client, swift-nio, swift-nio-ssl, swift-crypto)."),
        .trait(name: "Macros", description: "CourierMacros: @Service and @Mockable (swift-syntax)."),
        .trait(name: "Signing", description: "CourierSigning: HMAC and MD5 request signing (swift-crypto)."),
        .trait(name: "Metrics", description: "CourierMetrics (swift-metrics)."),
        .trait(name: "Tracing", description: "CourierTracing (swift-distributed-tracing)."),
        .trait(name: "Combine", description: "CourierCombine (OpenCombine on Linux)."),
        .trait(name: "Dependencies", description: "CourierDependencies (swift-dependencies)."),
        .trait(name: "OpenAPI", description: "CourierOpenAPI: interop with swift-openapi-generator clients (openapi-runtime's FullFoundation)."),
        .trait(name: "DevelopmentTools", description: "The demo, the benchmark and the test server (Hummingbird); Courier's own tests need it."),
        .default(enabledTraits: isDependencyCheckout ? libraryTraits : libraryTraits.union(["DevelopmentTools"])),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(
            url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4",
            traits: [.trait(name: "FullFoundation", condition: .when(traits: ["OpenAPI"]))]
        ),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        .package(url: "https://github.com/pointfreeco/swift-macro-testing", from: "0.7.0"),
        .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    ],
    targets: [
        // MARK: Core — depends only on swift-http-types, swift-openapi-runtime and swift-log.
        .target(
            name: "Courier",
            dependencies: [
                "CCourierFileStatus",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `lstat`, `fstat` and `fstatat` in fields Swift can read on every platform, for
        // DiskCacheStore and a CookieJar's file (three C functions: Glibc's `struct stat` fields are visible to Swift only
        // through CoreFoundation).
        .target(name: "CCourierFileStatus"),

        // MARK: Transports
        .target(
            name: "CourierURLSession",
            dependencies: [
                "Courier",
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "CourierAsyncHTTPClient",
            dependencies: [
                "Courier",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["AsyncHTTPClient"])),
                .target(name: "CCourierZlib", condition: .when(traits: ["AsyncHTTPClient"])),
            ]
        ),
        // The system zlib (headers and `libz`), for the AsyncHTTPClient transport's bounded inflater.
        .systemLibrary(name: "CCourierZlib", providers: [.apt(["zlib1g-dev"]), .yum(["zlib-devel"])]),

        // MARK: Middleware with dependencies of their own (one product each, so the core stays light)
        .target(name: "CourierSigning", dependencies: ["Courier", .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Signing"]))]),
        .target(name: "CourierMetrics", dependencies: ["Courier", .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Metrics"]))]),
        .target(
            name: "CourierTracing",
            dependencies: ["Courier", .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"]))]
        ),

        // MARK: Adapters (one product each)
        .target(
            name: "CourierCombine",
            dependencies: [
                "Courier",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux, .windows, .android], traits: ["Combine"])),
            ]
        ),
        .target(
            name: "CourierDependencies",
            dependencies: ["Courier", "CourierTesting", .product(name: "Dependencies", package: "swift-dependencies", condition: .when(traits: ["Dependencies"]))]
        ),
        .target(
            name: "CourierOpenAPI",
            dependencies: ["Courier", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")]
        ),

        // MARK: Testing kit
        .target(name: "CourierTesting", dependencies: ["Courier"]),

        // MARK: Macros
        // The expansions, a regular library: the plugin and the expansion tests both depend on it.
        // A test target that depends on a `.macro` target makes SwiftPM build the whole test
        // graph a second time for the host; through this target the tests never name the plugin.
        .target(
            name: "CourierMacrosImplementation",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax", condition: .when(traits: ["Macros"])),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax", condition: .when(traits: ["Macros"])),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax", condition: .when(traits: ["Macros"])),
                .product(name: "SwiftParser", package: "swift-syntax", condition: .when(traits: ["Macros"])),
                .product(name: "SwiftDiagnostics", package: "swift-syntax", condition: .when(traits: ["Macros"])),
            ]
        ),
        .macro(
            name: "CourierMacrosPlugin",
            dependencies: [
                "CourierMacrosImplementation",
                .product(name: "SwiftSyntax", package: "swift-syntax", condition: .when(traits: ["Macros"])),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax", condition: .when(traits: ["Macros"])),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax", condition: .when(traits: ["Macros"])),
            ]
        ),
        .target(
            name: "CourierMacros",
            dependencies: [
                "Courier", "CourierMacrosPlugin",
                .product(name: "IssueReporting", package: "xctest-dynamic-overlay", condition: .when(traits: ["Macros"])),
            ]
        ),

        // MARK: Executables
        .executableTarget(
            name: "CourierDemo",
            dependencies: [
                "Courier", "CourierAsyncHTTPClient", "CourierURLSession", "CourierMacros", "CourierTesting",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["DevelopmentTools"])),
            ]
        ),
        .executableTarget(
            name: "CourierBench",
            dependencies: [
                "Courier", "CourierAsyncHTTPClient", "CourierURLSession", "CourierMacros",
                .target(name: "CCourierZlib", condition: .when(traits: ["DevelopmentTools"])),
                // Its resumable upload server, for the `--transfers` memory probe.
                .target(name: "CourierTestServer", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["DevelopmentTools"])),
            ]
        ),

        // MARK: Tests
        .target(
            name: "CourierTestServer",
            dependencies: [
                "CourierTesting",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "NIOHTTP2", package: "swift-nio-http2", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "NIOHPACK", package: "swift-nio-http2", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["DevelopmentTools"])),
            ],
            path: "Tests/CourierTestServer"
        ),
        // The C heap's bytes in use, for the soak's memory accounting (glibc's mallinfo2, which
        // Swift's Glibc module does not import).
        .target(name: "CCourierTestMemory", path: "Tests/CCourierTestMemory"),
        .testTarget(
            name: "CourierTests",
            dependencies: ["Courier", "CourierTesting", .product(name: "InMemoryLogging", package: "swift-log")]
        ),
        // Each transport's unit tests (no server); its tests against a real server are in
        // CourierIntegrationTests.
        .testTarget(name: "CourierURLSessionTests", dependencies: ["Courier", "CourierURLSession"]),
        .testTarget(
            name: "CourierAsyncHTTPClientTests",
            dependencies: [
                "Courier", "CourierAsyncHTTPClient",
                "CourierTestServer",   // its gzip and deflate-bomb makers; no server is started
                .target(name: "CCourierZlib", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["DevelopmentTools"])),
            ]
        ),
        .testTarget(name: "CourierCombineTests", dependencies: ["CourierCombine", "CourierTesting"]),
        .testTarget(
            name: "CourierDependenciesTests",
            dependencies: ["CourierDependencies", "CourierTesting", .product(name: "Dependencies", package: "swift-dependencies", condition: .when(traits: ["DevelopmentTools"]))]
        ),
        .testTarget(name: "CourierOpenAPITests", dependencies: ["CourierOpenAPI", "CourierTesting"]),
        .testTarget(name: "CourierSigningTests", dependencies: ["CourierSigning", "CourierTesting"]),
        .testTarget(
            name: "CourierMetricsTests",
            dependencies: ["CourierMetrics", "CourierTesting", .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["DevelopmentTools"]))]
        ),
        .testTarget(
            name: "CourierTracingTests",
            dependencies: [
                "CourierTracing", "CourierTesting",
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["DevelopmentTools"])),
            ]
        ),
        .testTarget(
            name: "CourierIntegrationTests",
            dependencies: [
                "Courier", "CourierURLSession", "CourierAsyncHTTPClient", "CourierTesting", "CourierTestServer",
                "CCourierTestMemory",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "PropertyBased", package: "swift-property-based", condition: .when(traits: ["DevelopmentTools"])),
                "CourierSigning", "CourierMetrics", "CourierTracing",
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["DevelopmentTools"])),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "CourierMacrosImplementationTests",
            dependencies: [
                "CourierMacrosImplementation",
                .product(name: "MacroTesting", package: "swift-macro-testing", condition: .when(traits: ["DevelopmentTools"])),
            ]
        ),
        .testTarget(
            name: "CourierMacrosTests",
            dependencies: [
                "Courier", "CourierMacros", "CourierTesting", "CourierTestServer", "CourierAsyncHTTPClient",
                "CourierURLSession",
                .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay", condition: .when(traits: ["DevelopmentTools"])),
            ]
        ),
        // Every ```swift block of README.md, as generated by .ci/readme-snippets (CI checks they are current).
        .testTarget(
            name: "CourierReadmeTests",
            dependencies: ["Courier", "CourierURLSession", "CourierAsyncHTTPClient", "CourierMacros", "CourierTesting"]
        ),
    ]
)

// Every target: Swift 6 language mode, strict concurrency, explicit `any`.
// Library targets (as swift-openapi-runtime): MemberImportVisibility (SE-0444), so a file sees only
// the members of modules it imports itself. InternalImportsByDefault (SE-0409) where a target
// imports a module its public API does not use, so that module stays out of clients' scope:
// swift-crypto in CourierAsyncHTTPClient and CourierSigning. (SwiftNIO's modules still reach
// clients through AsyncHTTPClient's own public imports; the core's and the other products'
// imports — Foundation, HTTPTypes, OpenAPIRuntime, Logging, Tracing… — are in their public API.)
let internalImportsByDefault: Set = ["CourierAsyncHTTPClient", "CourierSigning"]
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    if target.type == .regular && target.name != "CourierTestServer" {
        settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    }
    if internalImportsByDefault.contains(target.name) {
        settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    }
    target.swiftSettings = settings
}
