import Courier
import CourierTesting
import Dependencies
import Foundation
import HTTPTypes
import OpenAPIRuntime

extension DependencyValues {
    /// The ``Courier/APIClient`` your features send requests with.
    ///
    /// There is no base URL Courier could guess, so the live value must be set once when the
    /// app starts; until then every request reports an issue and fails with a message that
    /// says so. In tests the default is ``Courier/APIClient/unimplemented(stubs:baseURL:)``:
    /// every request that no stub answers is reported as a test failure.
    ///
    /// ```swift
    /// @main struct MyApp: App {
    ///     init() {
    ///         prepareDependencies {
    ///             $0.apiClient = APIClient(configuration: APIConfiguration(baseURL: apiURL),
    ///                                      transport: URLSessionTransport(), middleware: [RetryMiddleware()])
    ///         }
    ///     }
    /// }
    ///
    /// struct UserFeature {
    ///     @Dependency(\.apiClient) var apiClient
    ///     func load(id: Int) async throws -> User { try await apiClient.send(GetUser(id: id)) }
    /// }
    /// ```
    public var apiClient: APIClient {
        get { self[APIClientKey.self] }
        set { self[APIClientKey.self] = newValue }
    }
}

/// The dependency key behind `DependencyValues.apiClient`.
public enum APIClientKey: DependencyKey {
    /// A client that reports every request: the app has not configured its client yet.
    public static var liveValue: APIClient {
        APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api-client-not-configured.invalid")!),
                  transport: UnconfiguredTransport())
    }

    /// A client that answers nothing and reports every request as unstubbed.
    public static var testValue: APIClient { .unimplemented() }

    /// Previews get the test value: stub what the preview needs.
    public static var previewValue: APIClient { .unimplemented() }
}

extension APIClient {
    /// A client for tests: answers from `stubs`, and reports an issue (a test failure under
    /// Swift Testing or XCTest, a runtime warning in an app) for any request that no stub
    /// matches, before failing it.
    ///
    /// ```swift
    /// let stubs = StubTransport()
    /// stubs.on(.get, "/users/{id}", .json(User(id: 1, name: "Ada")))
    /// let user = try await withDependencies {
    ///     $0.apiClient = .unimplemented(stubs: stubs)
    /// } operation: {
    ///     try await UserFeature().load(id: 1)
    /// }
    /// ```
    public static func unimplemented(
        stubs: StubTransport = StubTransport(),
        baseURL: URL = URL(string: "https://api.example.com")!,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> APIClient {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        return APIClient(configuration: APIConfiguration(baseURL: baseURL),
                         transport: ReportingStubTransport(stubs: stubs, site: site))
    }
}

struct CallSite: Sendable {
    let fileID: StaticString
    let filePath: StaticString
    let line: UInt
    let column: UInt
}

/// Answers from a ``CourierTesting/StubTransport``; a request it cannot answer is reported.
struct ReportingStubTransport: Transport {
    let stubs: StubTransport
    let site: CallSite

    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        do {
            return try await stubs.send(request, body: body, context: context)
        } catch let error as StubTransport.UnmatchedRequest {
            reportIssue(
                "Unimplemented: @Dependency(\\.apiClient) sent \(error.request) (operation \(context.operationName)), "
                    + "which no stub answers. Stub it: stubs.on(.\(request.method.rawValue.lowercased()), \"<path>\", ...)",
                fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column)
            throw error
        }
    }
}

/// The live value before the app configures one.
struct UnconfiguredTransport: Transport {
    struct NotConfigured: Error, CustomStringConvertible {
        var request: String
        var description: String {
            "@Dependency(\\.apiClient) has no live value: \(request) was not sent. "
                + "Set one when the app starts: prepareDependencies { $0.apiClient = APIClient(...) }"
        }
    }

    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        let error = NotConfigured(request: "\(request.method) \(request.path ?? "/")")
        reportIssue(error.description)
        throw TransportError(.invalidRequest, error.description, underlying: error, requestMayHaveBeenSent: false)
    }
}
