import Courier
import Foundation
import HTTPTypes

/// What a ``StubTransport`` answers: a status, headers and a body, after an optional delay — or
/// an error.
public struct StubResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The response headers.
    public var headers: HTTPFields
    /// The body bytes.
    public var body: Data
    /// How long to wait before answering (cancellable; past the request's deadline the transport
    /// reports a timeout, as a real one would).
    public var delay: Duration?
    /// An error to throw instead of answering.
    public var error: (any Error)?

    /// Creates a response.
    public init(status: Int = 200, headers: HTTPFields = [:], body: Data = Data(), delay: Duration? = nil, error: (any Error)? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.error = error
    }

    /// A JSON body encoded from a value (`Content-Type: application/json`).
    public static func json(_ value: some Encodable, status: Int = 200, headers: HTTPFields = [:], encoder: JSONEncoder = JSONEncoder()) -> StubResponse {
        do {
            return json(data: try encoder.encode(value), status: status, headers: headers)
        } catch {
            return StubResponse(error: error)
        }
    }

    /// A JSON body given as text.
    public static func json(_ text: String, status: Int = 200, headers: HTTPFields = [:]) -> StubResponse {
        json(data: Data(text.utf8), status: status, headers: headers)
    }

    /// A JSON body given as bytes.
    public static func json(data: Data, status: Int = 200, headers: HTTPFields = [:]) -> StubResponse {
        var fields = headers
        if fields[.contentType] == nil { fields[.contentType] = "application/json" }
        return StubResponse(status: status, headers: fields, body: data)
    }

    /// Bytes with a content type.
    public static func data(_ data: Data, contentType: String = "application/octet-stream", status: Int = 200) -> StubResponse {
        StubResponse(status: status, headers: [.contentType: contentType], body: data)
    }

    /// Text (`text/plain; charset=utf-8`).
    public static func text(_ text: String, status: Int = 200) -> StubResponse {
        StubResponse(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: Data(text.utf8))
    }

    /// A fixture file's contents; the content type follows the extension (JSON for `.json`).
    /// A missing file answers with an error that names it.
    public static func file(_ url: URL, status: Int = 200) -> StubResponse {
        do {
            let data = try Data(contentsOf: url)
            return StubResponse(status: status, headers: [.contentType: MediaType.infer(fileName: url.lastPathComponent).description], body: data)
        } catch {
            return StubResponse(error: StubTransport.FixtureError(path: url.path, underlying: "\(error)"))
        }
    }

    /// A status with an empty body (`204`, `404`…), optionally with a JSON error message.
    public static func status(_ code: Int, message: String? = nil, headers: HTTPFields = [:]) -> StubResponse {
        guard let message else { return StubResponse(status: code, headers: headers) }
        let body = try? JSONSerialization.data(withJSONObject: ["message": message])
        var fields = headers
        fields[.contentType] = "application/json"
        return StubResponse(status: code, headers: fields, body: body ?? Data())
    }

    /// A transport failure (e.g. `TransportError(.connectionFailed, "refused")`). A `URLError`
    /// (`URLError(.notConnectedToInternet)`) is reported as `URLSessionTransport` reports it: a
    /// `TransportError` of the matching kind, so the client retries it and calls it `.network`.
    public static func failure(_ error: any Error) -> StubResponse {
        StubResponse(error: error)
    }

    /// The same response after `delay`.
    public func delayed(by delay: Duration) -> StubResponse {
        var copy = self
        copy.delay = delay
        return copy
    }

    /// The same response with a header added.
    public func header(_ name: HTTPField.Name, _ value: String) -> StubResponse {
        var copy = self
        copy.headers.append(HTTPField(name: name, value: value))
        return copy
    }
}
