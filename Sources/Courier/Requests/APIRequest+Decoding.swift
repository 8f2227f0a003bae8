import Foundation
import HTTPTypes

extension APIRequest where Response: Decodable {
    /// Decodes the body as JSON with the client's decoder.
    public func decode(_ response: HTTPResponse, body: Data, context: DecodingContext) throws -> Response {
        try context.decodeJSON(Response.self, from: body)
    }
}

extension APIRequest where Response == Data {
    /// Returns the body as it arrived.
    public func decode(_ response: HTTPResponse, body: Data, context: DecodingContext) throws -> Data {
        body
    }
}

extension APIRequest where Response == String {
    /// Returns the body as UTF-8 text; fails on invalid UTF-8.
    public func decode(_ response: HTTPResponse, body: Data, context: DecodingContext) throws -> String {
        try context.decodeString(from: body)
    }
}

extension APIRequest where Response == Empty {
    /// Ignores the body (for `204 No Content`, `HEAD`, or when only the status matters).
    public func decode(_ response: HTTPResponse, body: Data, context: DecodingContext) throws -> Empty {
        Empty()
    }
}
