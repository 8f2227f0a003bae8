import Courier
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import OpenAPIRuntime
import Testing

/// A transport may leave a body it holds whole for the client, which then skips iterating it;
/// the bytes are used only for the very body they were left with, under the same size limit.
@Suite("Whole response bodies left by the transport")
struct WholeResponseBodyTests {
    /// A transport answering `body`, leaving `left` in the client's slot for the body `leftFor` picks.
    private static func transport(body: String, left: String?, forReturnedBody: Bool = true) -> MiddlewareTestTransport {
        MiddlewareTestTransport { _, _, context in
            let returned = HTTPBody(ArraySlice(body.utf8))
            if let left {
                context.bodyChannels.wholeResponse?.leave(Data(left.utf8), for: forReturnedBody ? returned : HTTPBody("other"))
            }
            return (HTTPResponse(status: .ok), returned)
        }
    }

    @Test("the client offers a slot only when it collects the body, and takes the bytes left for the body it got")
    func bytesLeftAreUsed() async throws {
        let offered = Locked<[Bool]>([])
        let transport = MiddlewareTestTransport { _, _, context in
            offered.withLock { $0.append(context.bodyChannels.wholeResponse != nil) }
            let returned = HTTPBody(ArraySlice("streamed".utf8))
            // Different bytes from the body's, so the test sees which were used.
            context.bodyChannels.wholeResponse?.leave(Data("left".utf8), for: returned)
            return (HTTPResponse(status: .ok), returned)
        }
        let client = MiddlewareFixtures.client(transport, [])
        let (_, data) = try await client.data(for: Request<Data>(path: "/x"))
        #expect(String(decoding: data, as: UTF8.self) == "left")
        let streamed = try await client.stream(for: Request<Data>(path: "/x"))
        let bytes = try await Data(collecting: try #require(streamed.body), upTo: 100)
        #expect(String(decoding: bytes, as: UTF8.self) == "streamed")
        #expect(offered.current == [true, false])
    }

    @Test("bytes left for another body are ignored: the body is read")
    func bytesForAnotherBodyAreIgnored() async throws {
        let client = MiddlewareFixtures.client(Self.transport(body: "real", left: "stale", forReturnedBody: false), [])
        let (_, data) = try await client.data(for: Request<Data>(path: "/x"))
        #expect(String(decoding: data, as: UTF8.self) == "real")
    }

    @Test("a middleware that replaces the body wins over the bytes the transport left")
    func replacedBodyWins() async throws {
        let replacing = MiddlewareTestSpy { request, body, context, next in
            let (response, original) = try await next(request, body, context)
            let text = try await String(collecting: try #require(original), upTo: 100)
            return (response, HTTPBody(ArraySlice(text.uppercased().utf8)))
        }
        let client = MiddlewareFixtures.client(Self.transport(body: "hello", left: "hello"), [replacing])
        let (_, data) = try await client.data(for: Request<Data>(path: "/x"))
        #expect(String(decoding: data, as: UTF8.self) == "HELLO")
    }

    @Test("bytes left past the response size limit fail as resourceTooLarge")
    func leftBytesObeyTheLimit() async throws {
        let client = MiddlewareFixtures.client(Self.transport(body: "small", left: String(repeating: "x", count: 64)), [])
        var request = Request<Data>(path: "/x")
        request.options.maxResponseSize = 16
        await #expect { try await client.data(for: request) } throws: { ($0 as? APIError)?.kind == .resourceTooLarge }
    }

    @Test("a logging middleware at its summary level keeps the hand-over, and logs the size")
    func summaryLoggingKeepsTheHandOver() async throws {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .info
        // The transport leaves bytes other than the body's, so the test sees which were used.
        let client = MiddlewareFixtures.client(Self.transport(body: "streamed", left: "left"),
                                               [LoggingMiddleware(logger: logger, level: .info)])
        let (_, data) = try await client.data(for: Request<Data>(path: "/x"))
        #expect(String(decoding: data, as: UTF8.self) == "left")
        #expect(handler.entries.map { $0.metadata["http.response.body.size"] } == ["8"])
    }
}
