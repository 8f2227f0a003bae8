@testable import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The body rules in one place: expected length, collecting up to a limit, prefixes, replay
/// and drain.
@Suite("BodyReading")
struct BodyReadingTests {
    private static let summary = RequestSummary(method: "GET", url: "https://api.example.com/x")

    private static func streamed(_ chunks: [String]) -> HTTPBody {
        let stream = AsyncStream<ArraySlice<UInt8>> { continuation in
            for chunk in chunks { continuation.yield(ArraySlice(chunk.utf8)) }
            continuation.finish()
        }
        return HTTPBody(stream, length: .unknown, iterationBehavior: .single)
    }

    private static func head(_ fields: HTTPFields = [:]) -> HTTPResponse {
        var head = HTTPResponse(status: .ok)
        head.headerFields = fields
        return head
    }

    @Test("expected length: the body's own, else Content-Length unless encoded, 0 without a body")
    func expectedLength() {
        #expect(BodyReading.expectedLength(of: HTTPBody("abc"), head: Self.head()) == 3)
        #expect(BodyReading.expectedLength(of: Self.streamed(["a"]), head: Self.head([.contentLength: "9"])) == 9)
        #expect(BodyReading.expectedLength(of: Self.streamed(["a"]), head: Self.head([.contentLength: "9", .contentEncoding: "gzip"])) == nil)
        #expect(BodyReading.expectedLength(of: Self.streamed(["a"]), head: Self.head()) == nil)
        #expect(BodyReading.expectedLength(of: nil, head: Self.head([.contentLength: "9"])) == 0)
    }

    @Test("a Content-Length that is not all digits (-5, +5, 5 5, 0x10) declares no length: never a negative size or capacity")
    func contentLengthDigitsOnly() async throws {
        for value in ["-5", "+5", "5 5", "0x10", "", "99999999999999999999"] {
            #expect(BodyReading.expectedLength(of: Self.streamed(["ab"]), head: Self.head([.contentLength: value])) == nil, "\(value)")
        }
        #expect(BodyReading.expectedLength(of: Self.streamed(["ab"]), head: Self.head([.contentLength: "0012"])) == 12)
        // A middleware or transport of the user's that hands such a head on: collected as streamed.
        #expect(try await BodyReading.collect(Self.streamed(["ab", "cd"]), head: Self.head([.contentLength: "-5"]), limit: 10, summary: Self.summary)
            == Data("abcd".utf8))
    }

    @Test("collect: the whole body under the limit; resourceTooLarge past it, declared or streamed")
    func collect() async throws {
        #expect(try await BodyReading.collect(Self.streamed(["ab", "cd"]), head: Self.head(), limit: 4, summary: Self.summary) == Data("abcd".utf8))
        await #expect {
            try await BodyReading.collect(Self.streamed(["ab", "cde"]), head: Self.head(), limit: 4, summary: Self.summary)
        } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .resourceTooLarge, let limit = apiError.sizeLimit else { return false }
            return limit == 4
        }
        await #expect(throws: APIError.self) {
            try await BodyReading.collect(Self.streamed([]), head: Self.head([.contentLength: "5"]), limit: 4, summary: Self.summary)
        }
        #expect(try await BodyReading.collect(nil, head: Self.head(), limit: 0, summary: Self.summary).isEmpty)
    }

    /// An in-memory sequence of chunks that counts the calls to its iterators' `next()`.
    private struct CountingChunks: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>
        let chunks: [ArraySlice<UInt8>]
        let calls = Locked(0)

        struct AsyncIterator: AsyncIteratorProtocol {
            var rest: ArraySlice<ArraySlice<UInt8>>
            let calls: Locked<Int>
            mutating func next() async -> ArraySlice<UInt8>? {
                calls.withLock { $0 += 1 }
                return rest.popFirst()
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: chunks[...], calls: calls) }
    }

    @Test("collect: an in-memory body whose first chunk fills its declared length is not asked for its end; any other body is read to its end")
    func collectStopsAtDeclaredLength() async throws {
        let whole = CountingChunks(chunks: [ArraySlice("abcd".utf8)])
        let data = try await BodyReading.collect(HTTPBody(whole, length: .known(4), iterationBehavior: .multiple), head: Self.head(),
                                                 limit: 10, summary: Self.summary)
        #expect(data == Data("abcd".utf8))
        #expect(whole.calls.withLock { $0 } == 1)

        // Single-pass (a streaming transport finishes the exchange when asked for the end),
        // in several chunks, or of unknown length: read until the sequence ends.
        for (chunks, length, behavior) in [(["abcd"], HTTPBody.Length.known(4), IterationBehavior.single),
                                           (["ab", "cd"], .known(4), .multiple),
                                           (["abcd"], .unknown, .multiple)] {
            let counted = CountingChunks(chunks: chunks.map { ArraySlice($0.utf8) })
            let collected = try await BodyReading.collect(HTTPBody(counted, length: length, iterationBehavior: behavior), head: Self.head(),
                                                          limit: 10, summary: Self.summary)
            #expect(collected == Data("abcd".utf8))
            #expect(counted.calls.withLock { $0 } == chunks.count + 1)
        }

        // The first chunk alone past the limit.
        await #expect(throws: APIError.self) {
            try await BodyReading.collect(Self.streamed(["abcdef"]), head: Self.head(), limit: 4, summary: Self.summary)
        }
    }

    @Test("consuming prefix: at most the limit, across chunk boundaries")
    func consumingPrefix() async {
        #expect(await BodyReading.consumingPrefix(of: Self.streamed(["abc", "def", "ghi"]), limit: 5) == Data("abcde".utf8))
        #expect(await BodyReading.consumingPrefix(of: Self.streamed(["ab"]), limit: 5) == Data("ab".utf8))
        #expect(await BodyReading.consumingPrefix(of: nil, limit: 5).isEmpty)
    }

    @Test("replayable prefix and bytes leave single-pass bodies untouched")
    func replayable() async throws {
        let single = Self.streamed(["abc"])
        #expect(await BodyReading.replayablePrefix(of: single, limit: 2) == nil)
        #expect(try await BodyReading.replayableBytes(single, limit: 10) == nil)
        #expect(!BodyReading.isReplayable(single))
        let prefix = await BodyReading.replayablePrefix(of: HTTPBody("abcdef"), limit: 4)
        #expect(prefix?.0 == Data("abcd".utf8) && prefix?.truncated == true)
        #expect(try await BodyReading.replayableBytes(HTTPBody("abcdef"), limit: 10) == Data("abcdef".utf8))
        #expect(try await BodyReading.replayableBytes(HTTPBody("abcdef"), limit: 3) == nil)
        #expect(BodyReading.isReplayable(nil) && BodyReading.isReplayable(HTTPBody("x")))
    }

    @Test("an error response larger than the quoted prefix still shows its start")
    func largeErrorBodyQuoted() async {
        let big = String(repeating: "e", count: BodyReading.errorPrefixLimit + 10)
        let quoted = await BodyReading.consumingPrefix(of: Self.streamed([big]), limit: BodyReading.errorPrefixLimit)
        #expect(quoted.count == BodyReading.errorPrefixLimit)
    }
}
