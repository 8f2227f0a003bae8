import HTTPTypes
import OpenAPIRuntime

extension APIClient {
    /// The same as ``stream(for:)``, as a tuple.
    @available(*, deprecated, renamed: "stream(for:)")
    public func stream<R: APIRequest>(_ request: R) async throws -> (HTTPResponse, HTTPBody?, RequestSummary) {
        try await openStream(request)
    }
}
