import Courier
import Foundation
import OpenAPIRuntime
import Testing

/// Logging, metrics and tracing watch a response body through `ObservedBody`: they learn its
/// size and when it ended, without buffering it.
@Suite("Observed response bodies")
struct ObservedBodyTests {
    /// A single-pass body of `chunks`.
    private static func streamed(_ chunks: [String]) -> HTTPBody {
        let (stream, continuation) = AsyncStream<HTTPBody.ByteChunk>.makeStream()
        for chunk in chunks { continuation.yield(ArraySlice(chunk.utf8)) }
        continuation.finish()
        return HTTPBody(stream, length: .unknown, iterationBehavior: .single)
    }

    @Test("a body whole in memory is reported at once with its length and handed on itself")
    func wholeBodyIsReportedAtOnce() async throws {
        let outcomes = Locked<[ObservedBody.Outcome]>([])
        let body = HTTPBody("hello")
        let observed = ObservedBody.wrap(body) { outcome in outcomes.withLock { $0.append(outcome) } }
        #expect(observed === body)
        let outcome = try #require(outcomes.current.first)
        #expect(outcomes.current.count == 1)
        #expect(outcome.bytes == 5)
        #expect(!outcome.abandoned)
        #expect(outcome.error == nil)
        #expect(try await String(collecting: try #require(observed), upTo: 100) == "hello")
        #expect(outcomes.current.count == 1)
    }

    @Test("a streamed body is reported when it ends, with the bytes that went through")
    func streamedBodyIsReportedAtItsEnd() async throws {
        let outcomes = Locked<[ObservedBody.Outcome]>([])
        let body = Self.streamed(["hel", "lo"])
        let observed = try #require(ObservedBody.wrap(body) { outcome in outcomes.withLock { $0.append(outcome) } })
        #expect(observed !== body)
        #expect(outcomes.current.isEmpty)
        #expect(try await String(collecting: observed, upTo: 100) == "hello")
        #expect(outcomes.current.map(\.bytes) == [5])
    }

    @Test("when a prefix is wanted, even a body in memory is watched as it is read")
    func prefixMeansWatching() async throws {
        let outcomes = Locked<[ObservedBody.Outcome]>([])
        let body = HTTPBody("hello")
        let observed = try #require(ObservedBody.wrap(body, prefixLength: 3) { outcome in outcomes.withLock { $0.append(outcome) } })
        #expect(observed !== body)
        _ = try await String(collecting: observed, upTo: 100)
        #expect(outcomes.current.map { String(decoding: $0.prefix, as: UTF8.self) } == ["hel"])
    }

    @Test("a streamed body dropped unread is reported as abandoned")
    func droppedBodyIsAbandoned() async throws {
        let outcomes = Locked<[ObservedBody.Outcome]>([])
        do {
            _ = ObservedBody.wrap(Self.streamed(["x"])) { outcome in outcomes.withLock { $0.append(outcome) } }
        }
        #expect(outcomes.current.map(\.abandoned) == [true])
    }
}
