import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Everything Courier does to an `HTTPBody` it reads itself, in one place: its expected length,
/// collecting it up to a limit, reading a prefix (consuming it, or only when it can be read
/// again), replaying it, and draining it so the connection can be reused.
///
/// As swift-openapi-runtime keeps `init(collecting:upTo:)` next to `HTTPBody`, the rules live
/// here and nowhere else: every reader of a body calls these.
package enum BodyReading {
    /// The most bytes of an error response read to quote it in an ``APIError`` (64 KiB).
    package static let errorPrefixLimit = 64 * 1024
    /// The most bytes read from a response that is dropped (before a retry or a redirect), so
    /// the connection can be reused; a longer body is abandoned and the transport closes the
    /// connection (64 KiB).
    package static let drainLimit = 64 * 1024
    /// The size of the chunks files and multipart bodies are read in (64 KiB).
    package static let uploadChunkSize = 64 * 1024

    /// The body's length when the transport or the `Content-Length` header says: `0` without a
    /// body, `nil` when unknown. A compressed body's header counts compressed bytes, so it is
    /// not trusted then.
    package static func expectedLength(of body: HTTPBody?, head: HTTPResponse) -> Int64? {
        guard let body else { return 0 }
        if case .known(let length) = body.length, length >= 0 { return length }
        return declaredLength(of: head)
    }

    /// The decoded body's length as `Content-Length` declares it; `nil` without one, when the
    /// body is coded (the header then counts coded bytes), or when the value is not all digits
    /// (RFC 9110 §8.6: `-5` and `+5`, which `Int64(_:)` reads, declare nothing).
    package static func declaredLength(of head: HTTPResponse) -> Int64? {
        guard !head.headerFields.has(.contentEncoding), let header = head.headerFields.value(of: .contentLength) else { return nil }
        return contentLength(header)
    }

    /// A `Content-Length` value as a length: digits only (RFC 9110 §8.6), else `nil` — `-5` and
    /// `+5`, which `Int64(_:)` reads, are no length.
    package static func contentLength(_ value: String) -> Int64? {
        guard !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int64(value)
    }

    /// The whole body in memory. Throws ``APIError/Kind/resourceTooLarge`` as soon as
    /// the expected length or the bytes received pass `limit`; the body's iteration is then
    /// abandoned, which makes the transport cancel the exchange.
    /// When the transport left the body's bytes in `whole` (see ``WholeResponseBody``), they are
    /// taken from there instead of iterating the body, under the same limit.
    package static func collect(_ body: HTTPBody?, head: HTTPResponse, limit: Int, summary: RequestSummary,
                                whole: WholeResponseBody? = nil) async throws -> Data {
        do {
            return try await collect(body, head: head, limit: limit, whole: whole)
        } catch let error as BodyLimitExceeded {
            throw APIError.resourceTooLarge(request: summary, limit: error.limit)
        }
    }

    /// The bytes a transport left in `whole` for `body` (see ``WholeResponseBody``), under
    /// `limit`; `nil` when it left none, and the body must be read with
    /// ``collect(_:head:limit:summary:whole:)``. Not async: a body held whole is taken without
    /// the async call and its task frame.
    package static func takeWhole(_ body: HTTPBody?, limit: Int, summary: RequestSummary, whole: WholeResponseBody?) throws -> Data? {
        guard let body, let bytes = whole?.take(for: body) else { return nil }
        if bytes.count > limit { throw APIError.resourceTooLarge(request: summary, limit: limit) }
        return bytes
    }

    /// ``collect(_:head:limit:summary:whole:)`` for a caller that does not know the request:
    /// throws ``BodyLimitExceeded`` past `limit`.
    package static func collect(_ body: HTTPBody?, head: HTTPResponse, limit: Int, whole: WholeResponseBody? = nil) async throws -> Data {
        guard let body else { return Data() }
        let expected = expectedLength(of: body, head: head).map { Int(clamping: $0) }
        if let expected, expected > limit {
            throw BodyLimitExceeded(limit: limit)
        }
        if let bytes = whole?.take(for: body) {
            if bytes.count > limit { throw BodyLimitExceeded(limit: limit) }
            return bytes
        }
        var iterator = body.makeAsyncIterator()
        guard let first = try await iterator.next() else { return Data() }
        if first.count > limit { throw BodyLimitExceeded(limit: limit) }
        if isWhole(body, afterFirstChunkOf: first.count) { return Data(first) }
        var data = Data()
        if let expected { data.reserveCapacity(expected) }
        data.append(contentsOf: first)
        while let chunk = try await iterator.next() {
            if data.count + chunk.count > limit {
                throw BodyLimitExceeded(limit: limit)
            }
            data.append(contentsOf: chunk)
        }
        return data
    }

    /// Whether a body is known to be over once its first chunk of `count` bytes was read: an
    /// in-memory body (one that can be read again: `HTTPBody(data)`, a transport's collected
    /// answer, a cache hit) whose declared length that chunk fills. Asking such a body for its
    /// end is one more async call through `HTTPBody`'s type-erased iterator that can only
    /// return `nil`. A single-pass body is always read
    /// to its end: a streaming transport learns there that the exchange is over and can reuse
    /// the connection.
    package static func isWhole(_ body: HTTPBody, afterFirstChunkOf count: Int) -> Bool {
        guard body.iterationBehavior == .multiple, case .known(let length) = body.length else { return false }
        return length == Int64(count)
    }

    /// The first `limit` bytes of a body that will not be used otherwise (an error response),
    /// consuming it; whatever was read when the stream fails.
    package static func consumingPrefix(of body: HTTPBody?, limit: Int) async -> Data {
        guard let body else { return Data() }
        let limit = max(0, limit)   // a negative size limit (a caller's arithmetic) reads nothing
        var data = Data()
        do {
            for try await chunk in body {
                data.append(contentsOf: chunk.prefix(limit - data.count))
                if data.count >= limit { break }
            }
        } catch {}
        return data
    }

    /// `body`, or the same bytes without an upload's progress count: a read by middleware is
    /// not progress (see ``UploadDescription/uncounted``).
    private static func uncounted(_ body: HTTPBody?) -> HTTPBody? {
        guard let body else { return nil }
        return body.uploadDescription?.uncounted ?? body
    }

    /// The first `limit` bytes of a body that can be read again, and whether there was more;
    /// `nil` for a single-pass body, which is never touched.
    package static func replayablePrefix(of body: HTTPBody?, limit: Int) async -> (Data, truncated: Bool)? {
        guard let body = uncounted(body), body.iterationBehavior == .multiple else { return nil }
        var data = Data()
        do {
            for try await chunk in body {
                data.append(contentsOf: chunk.prefix(limit - data.count))
                if data.count >= limit { return (data, true) }
            }
        } catch {
            return nil
        }
        return (data, false)
    }

    /// Whether `body` can be sent again: no body, or one that can be iterated more than once.
    package static func isReplayable(_ body: HTTPBody?) -> Bool {
        guard let body else { return true }
        return body.iterationBehavior == .multiple
    }

    /// The bytes of a body that can be iterated again, up to `limit` bytes (`nil` when the body
    /// is single-pass, so it is never consumed, or longer than `limit`).
    package static func replayableBytes(_ body: HTTPBody?, limit: Int) async throws -> Data? {
        guard let body = uncounted(body) else { return Data() }
        guard body.iterationBehavior == .multiple else { return nil }
        if case .known(let length) = body.length, length > limit { return nil }
        var data = Data()
        for try await chunk in body {
            data.append(contentsOf: chunk)
            if data.count > limit { return nil }
        }
        return data
    }

    /// Reads and drops up to ``drainLimit`` bytes of a response body that will not be used.
    package static func drain(_ body: HTTPBody?) async {
        guard let body else { return }
        var seen = 0
        do {
            for try await chunk in body {
                seen += chunk.count
                if seen > drainLimit { return }
            }
        } catch {}
    }
}
