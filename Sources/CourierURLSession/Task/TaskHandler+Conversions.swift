import Courier
import Foundation
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a URLSession response head and a task's error become in Courier.
extension TaskHandler {
    /// The head of `response` as swift-http-types' `HTTPResponse`; throws a ``TransportError``
    /// for a status that is not a three-digit code (an HTTP/2 `:status` can be any number).
    static func head(from response: URLResponse) throws(TransportError) -> HTTPResponse {
        guard let http = response as? HTTPURLResponse else { return HTTPResponse(status: .ok) }
        var head = HTTPResponse(status: try .checked(code: http.statusCode))
        let all = http.allHeaderFields
        // Bounded as it is built: the split below turns one folded line into any number of fields.
        var fields = ResponseFieldsBuilder(expecting: all.count)
        for (key, value) in all {
            // FoundationNetworking builds this dictionary from `[String: String]` at each read,
            // so every key is a String: `key.base as? String` opens the box and checks one type,
            // while `key as? String` goes through AnyHashable's own, far slower downcast, for
            // every header. On Apple platforms the keys come from a bridged
            // `NSDictionary`, and a cast from `Any` to `String` bridges an `NSString` too.
            guard let key = key.base as? String, let name = HTTPField.Name(key) else { continue }
            // The values are Strings: a cast is cheap, while "\(value)" formats an `Any`
            // through a chain of dynamic casts, for every header.
            let text = value as? String ?? "\(value)"
            if name == .setCookie {
                // HTTPURLResponse folds repeated Set-Cookie fields into one, joined with commas:
                // hand them on one field per cookie, as the wire had them.
                for cookie in SetCookieParser.splitFolded(text) { try fields.append(HTTPField(name: name, value: String(cookie))) }
            } else {
                try fields.append(HTTPField(name: name, value: text))
            }
        }
        head.headerFields = fields.fields
        return head
    }

    /// Stores the cookies of `head`'s `Set-Cookie` fields (one cookie each: ``head(from:)``
    /// splits the folded ones) for `url` in `storage`, as FoundationNetworking does with each
    /// header line when its configuration accepts cookies: through `HTTPCookie`'s own parser and
    /// the storage's own policy, so what is kept is what the session would have kept.
    static func storeCookies(of head: HTTPResponse, from url: URL, in storage: HTTPCookieStorage) {
        let fields = head.headerFields[fields: .setCookie]
        guard !fields.isEmpty else { return }
        var cookies: [HTTPCookie] = []
        for field in fields {
            cookies += HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": field.value], for: url)
        }
        if !cookies.isEmpty { storage.setCookies(cookies, for: url, mainDocumentURL: nil) }
    }

    /// The content codings the session decodes and Courier asks for: gzip and deflate on every
    /// platform (and `br`, which Apple's URLSession advertises and decodes itself).
    static let decodedCodings: Set<String> = {
        #if canImport(FoundationNetworking)
        return ["gzip", "deflate", "identity", ""]
        #else
        return ["gzip", "deflate", "br", "identity", ""]
        #endif
    }()

    /// What the caller is told of `error` (the session's, or a cancellation's) for a task
    /// cancelled for `reason`: the reason decides, as the session reports every cancellation
    /// alike.
    static func map(_ error: any Error, reason: TaskCancelReason?) -> any Error {
        if case .undecodedCoding(let coding) = reason {
            return TransportError(.other, "the response is encoded with '\(LogSafeText.escape(String(coding.prefix(60))))', which this transport does not decode (it decodes \(decodedCodings.filter { !$0.isEmpty && $0 != "identity" }.sorted().joined(separator: ", ")))", underlying: error)
        }
        if reason == .timeout { return TransportError(.timeout, "the deadline passed", underlying: error) }
        if case .unusableHead(let message) = reason { return TransportError(.other, message) }
        if reason == .bodyBufferFailed {
            // The body already ends with the buffer's own error; this is what else reports it.
            return TransportError(.localFile, "the transfer was stopped: its response body could not be buffered", underlying: error)
        }
        if reason == .cancelled { return CancellationError() }
        guard let urlError = error as? URLError else { return TransportError(.other, "\(error)", underlying: error) }
        return TransportError(urlError)
    }

    /// The error a completed task ends with (`nil`: a success), from the session's `error`
    /// (after the rejected-challenge rule, see ``TaskStateMachine/completed(error:)``), why the
    /// task was cancelled and why writing to the download's sink failed.
    static func endError(_ error: (any Error)?, reason: TaskCancelReason?, sinkError: (any Error)?) -> (any Error)? {
        var mapped: (any Error)? = error.map { map($0, reason: reason) }
        if mapped == nil, let reason {
            // Cancelled (a deadline, the caller, a refused coding or a failed sink) while the
            // session completed the transfer before the cancellation reached it: what arrived
            // after the cancellation may have been dropped, so this is not a success.
            mapped = map(URLError(.cancelled), reason: reason)
        }
        if reason == .sinkFailed || reason == nil, let sinkError {
            // The download's own size limit is not a file failure (the client reports it as
            // `resourceTooLarge`); anything else is the destination file's.
            let kind: TransportError.Kind = sinkError is BodyLimitExceeded ? .other : .localFile
            mapped = TransportError(kind, "writing the downloaded body failed: \(sinkError)", underlying: sinkError)
        }
        return mapped
    }
}
