import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Checks the status code and content type of every response, as the Combine operators
/// `validateStatusCode(in:)` and `hasContentType(_:)` do in a request pipeline.
///
/// ```swift
/// ValidationMiddleware(statusCodes: 200..<300, contentTypes: ["application/json"])
/// ValidationMiddleware(statusCodes: [200, 201, 204])
/// ValidationMiddleware(contentTypes: ["image/*"])
/// ```
///
/// A status outside `statusCodes` — and outside the request's own
/// ``RequestOptions/acceptableStatusCodes``, when it sets them — fails with ``APIError/Kind/httpError``
/// (with up to 64 KiB of the body, for the message); a content type that matches none of
/// `contentTypes` fails with ``APIError/Kind/unexpectedContentType``.
/// Content types match case-insensitively, with or without parameters (`application/json`
/// matches `application/json; charset=utf-8`), and `type/*` or `*/*` match any subtype.
/// Responses without a body (`204`, `304`, `HEAD`) are not checked for a content type.
public struct ValidationMiddleware: Middleware {
    /// The acceptable status codes (`nil`: any).
    public let statusCodes: Set<Int>?
    /// The acceptable content types (empty: any).
    public let contentTypes: [String]

    /// Creates the middleware.
    /// - Parameters:
    ///   - statusCodes: any sequence of status codes (a range, an array, a set).
    ///   - contentTypes: the acceptable media types; empty checks none.
    public init(statusCodes: some Sequence<Int> = 200..<300, contentTypes: [String] = []) {
        self.statusCodes = Set(statusCodes)
        self.contentTypes = contentTypes
    }

    /// Creates the middleware that checks only content types (any status passes).
    public init(contentTypes: [String]) {
        self.statusCodes = nil
        self.contentTypes = contentTypes
    }

    /// Sends the request on and checks the response's status and content type.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, context)
        let summary = RequestSummary(request, context: context)
        if let statusCodes, !statusCodes.contains(response.status.code) {
            // A status the request accepts itself (`RequestOptions(acceptableStatusCodes:)`, or
            // `dataPublisher`'s "any status") passes, unchecked: its body (an error page) is
            // the caller's to look at, not held to the success content types.
            if context.options.acceptableStatusCodes?.contains(response.status.code) == true { return (response, responseBody) }
            let data = await BodyReading.consumingPrefix(of: responseBody, limit: BodyReading.errorPrefixLimit)
            throw APIClient.httpError(response, body: data, summary: summary)
        }
        let hasBody = request.method != .head && response.status.code != 204 && response.status.code != 304
        if !contentTypes.isEmpty, hasBody {
            let received = response.headerFields[.contentType]
            guard let received, contentTypes.contains(where: { Self.matches(received, $0) }) else {
                await BodyReading.drain(responseBody)
                throw APIError.unexpectedContentType(request: summary, expected: contentTypes, received: received)
            }
        }
        return (response, responseBody)
    }

    /// Whether `received` (a `Content-Type` value) matches `expected` (a media type, maybe with
    /// `*` wildcards), as ``MediaType/matches(_:)`` says. Parameters are ignored unless
    /// `expected` has some, which must then match; a `received` that is not a media type matches
    /// only `*/*`.
    public static func matches(_ received: String, _ expected: String) -> Bool {
        guard let expected = MediaType(expected) else { return false }
        guard let received = MediaType(received) else { return expected.type == "*" && expected.subtype == "*" }
        return received.matches(expected)
    }
}
