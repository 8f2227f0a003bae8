import Foundation
import HTTPTypes

/// A copy of another request with some of its parts changed, decoding as the original does.
///
/// Streaming and pagination use it to add a header (`Last-Event-ID`), replace the body with a
/// progress-reporting one, or move to the next page, whatever the caller's request type is.
struct ModifiedRequest<Base: APIRequest>: APIRequest {
    typealias Response = Base.Response

    let base: Base
    var method: HTTPRequest.Method
    var path: RequestPath
    var pathParameters: [String: String]
    var query: [URLQueryItem]
    var headers: HTTPFields
    var body: RequestBody?
    /// The base's options, with its input error if it recorded one (see
    /// ``RequestOptions/deferredEncodingError``).
    var options: RequestOptions

    init(_ base: Base) {
        self.base = base
        self.path = base.path.requestPath
        self.pathParameters = base.pathParameters
        // Every spelling of the query and of the options, folded into the ones this type has.
        self.query = base.query
        self.options = base.wireOptions()
        // Logs, metrics and traces name the caller's request, not this wrapper.
        if options.operationName == nil { options.operationName = _typeName(Base.self, qualified: false) }
        do {
            self.query += try base._wireQuery()
            self.method = try base.wireMethod()
            self.headers = try base.wireHeaders()
            self.body = try base.wireBody()
        } catch {
            self.method = .get
            self.headers = [:]
            self.body = nil
            if options.deferredEncodingError == nil { options.deferredEncodingError = error }
        }
    }

    func decode(_ response: HTTPResponse, body: Data, context: DecodingContext) throws -> Base.Response {
        try base.decode(response, body: body, context: context)
    }

    /// Sets a header unless the request already has one with that name.
    mutating func setDefaultHeader(_ name: HTTPField.Name, _ value: String) {
        if headers[name] == nil { headers[name] = value }
    }

    /// Replaces every query item called `name` with one holding `value`.
    mutating func setQueryItem(_ name: String, _ value: String) {
        query.removeAll { $0.name == name }
        query.append(URLQueryItem(name: name, value: value))
    }
}
