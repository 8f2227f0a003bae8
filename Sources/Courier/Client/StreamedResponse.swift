import HTTPTypes
import OpenAPIRuntime

/// A response whose body has not been read yet, from ``APIClient/stream(for:)``.
public struct StreamedResponse: Sendable {
    /// The response head; its status is one of the acceptable codes.
    public var response: HTTPResponse
    /// The body, unread (`nil` when the response has none). Read it once.
    public var body: HTTPBody?
    /// The request it answers (secrets redacted).
    public var request: RequestSummary

    /// Creates a streamed response.
    public init(response: HTTPResponse, body: HTTPBody?, request: RequestSummary) {
        self.response = response
        self.body = body
        self.request = request
    }
}
