import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// An origin for ``ScriptedTransport`` serving one representation with ranges (RFC 9110): a
/// strong `ETag`, `Content-Length`, `Accept-Ranges`, `Range` honoured when `If-Range` matches.
/// Each response is cut (a lost connection) at the next of ``Behavior/cuts`` after its start;
/// the rest of ``Behavior`` misbehaves on purpose.
final class FakeOrigin: Sendable {
    struct Behavior: Sendable {
        var content: [UInt8]
        var etag: String? = "\"v1\""
        /// Absolute offsets; each cuts one response (the first response that reaches it).
        var cuts: [Int] = []
        /// Bytes per chunk of a body.
        var chunk = 100
        var ignoresRanges = false
        /// Added to the start a 206's Content-Range announces (a lying server).
        var contentRangeShift = 0
        /// A 206 with the whole content to a request without Range.
        var partialForPlainRequests = false
        /// Bytes sent after a 206's announced range (an overrunning server).
        var extraBytes = 0
        /// A `Repr-Digest` value to send.
        var reprDigest: String? = nil
        /// A response that stops sending at its cut and never ends (for cancellation).
        var hangsAfterCut = false
        /// Every answer starting at or after this offset is cut before its first byte.
        var cutsEverythingFrom: Int? = nil
        /// The content and tag after each cut, when the resource changes.
        var changes: [(content: [UInt8], etag: String)] = []
        /// Other fields for every answer.
        var extraFields: [(String, String)] = []
    }

    let state: LockedBox<Behavior>
    init(_ behavior: Behavior) { state = LockedBox(behavior) }

    /// `count` deterministic bytes (not periodic: a misplaced block changes the bytes).
    static func bytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var value = seed &* 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            value ^= value << 13; value ^= value >> 7; value ^= value << 17
            return UInt8(truncatingIfNeeded: value)
        }
    }

    var script: ScriptedTransport.Script {
        { [self] request, _ in try respond(request) }
    }

    private func respond(_ request: HTTPRequest) throws -> (HTTPResponse, HTTPBody?) {
        let b = state.withLock { $0 }
        var fields = HTTPFields()
        if let etag = b.etag { fields[.eTag] = etag }
        if !b.ignoresRanges { fields[.acceptRanges] = "bytes" }
        if let digest = b.reprDigest { fields[HTTPField.Name("Repr-Digest")!] = digest }
        for (name, value) in b.extraFields { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        var start = 0
        var status = HTTPResponse.Status.ok
        if !b.ignoresRanges, let range = request.headerFields[.range], range.hasPrefix("bytes="), range.hasSuffix("-"),
           let from = Int(range.dropFirst(6).dropLast()) {
            let ifRange = request.headerFields[.ifRange]
            if ifRange == nil || ifRange == b.etag {
                if from >= b.content.count {
                    fields[.contentRange] = "bytes */\(b.content.count)"
                    return (HTTPResponse(status: .rangeNotSatisfiable, headerFields: fields), HTTPBody())
                }
                start = from
                status = .partialContent
            }
        }
        if status == .ok && b.partialForPlainRequests { status = .partialContent }
        if status == .partialContent {
            fields[.contentRange] = "bytes \(start + b.contentRangeShift)-\(b.content.count - 1)/\(b.content.count)"
        }
        fields[.contentLength] = "\(b.content.count - start)"
        // The next cut after the start, used once.
        let cut = state.withLock { behavior -> Int? in
            guard let index = behavior.cuts.firstIndex(where: { $0 > start }) else { return nil }
            let cut = behavior.cuts.remove(at: index)
            if !behavior.changes.isEmpty {
                let next = behavior.changes.removeFirst()
                behavior.content = next.content
                behavior.etag = next.etag
            }
            return cut
        }
        var body = Array(b.content[start...])
        if status == .partialContent { body += Array(repeating: UInt8(ascii: "X"), count: b.extraBytes) }
        var end = cut.map { $0 - start } ?? body.count
        let stuck = b.cutsEverythingFrom.map { start >= $0 } ?? false
        if stuck { end = 0 }
        let chunks = stride(from: 0, to: end, by: b.chunk).map { body[$0..<min($0 + b.chunk, end)] }
        let hangs = b.hangsAfterCut
        let stream = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { continuation in
            let task = Task {
                for chunk in chunks { continuation.yield(chunk) }
                guard cut != nil || stuck else { continuation.finish(); return }
                if hangs {
                    while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
                    continuation.finish(throwing: CancellationError())
                    return
                }
                continuation.finish(throwing: TransportError(.connectionLost, "cut by the fake origin"))
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return (HTTPResponse(status: status, headerFields: fields), HTTPBody(stream, length: .unknown, iterationBehavior: .single))
    }
}
