import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("events(for:) — Server-Sent Events")
struct ServerSentEventTests {
    private func events(_ chunks: [String]) async throws -> [ServerSentEvent] {
        let (client, _) = scriptedClient { _, _ in (ok([.contentType: "text/event-stream"]), chunkedBody(chunks)) }
        var out: [ServerSentEvent] = []
        for try await event in try await client.events(for: Request<Void>(path: "/sse")) { out.append(event) }
        return out
    }

    @Test("id, event, data and retry fields")
    func fields() async throws {
        let received = try await events(["id: 7\nevent: update\nretry: 1500\ndata: hello\n\n"])
        #expect(received == [ServerSentEvent(id: "7", event: "update", data: "hello", retry: 1500)])
    }

    @Test("LF, CR and CRLF line ends, even split across chunks")
    func lineEnds() async throws {
        let received = try await events(["data: lf\n\n", "data: cr\r\r", "data: crlf\r", "\n\r\n"])
        #expect(received.map(\.data) == ["lf", "cr", "crlf"])
    }

    @Test("multi-line data is joined with newlines; comments are ignored")
    func multiLineAndComments() async throws {
        let received = try await events([": keep-alive\n\n", "data: line one\n: a comment\ndata: line two\ndata:\n\n"])
        #expect(received.map(\.data) == ["line one\nline two\n"])
    }

    @Test("an event without data updates state but is not dispatched")
    func noData() async throws {
        let received = try await events(["id: 1\nretry: 10\n\n", "event: x\ndata: y\n\n"])
        #expect(received == [ServerSentEvent(event: "x", data: "y")])
    }

    @Test("the request asks for an event stream")
    func headers() async throws {
        let (client, transport) = scriptedClient { _, _ in (ok(), chunkedBody([])) }
        for try await _ in try await client.events(for: Request<Void>(path: "/sse"), lastEventID: "41") {}
        let sent = try #require(transport.requests.first)
        #expect(sent.headerFields[.accept] == "text/event-stream")
        #expect(sent.headerFields[.cacheControl] == "no-cache")
        #expect(sent.headerFields[HTTPField.Name("Last-Event-ID")!] == "41")
    }

    @Test("reconnects with Last-Event-ID after the server's retry delay")
    func reconnects() async throws {
        let (client, transport) = scriptedClient { _, call in
            switch call {
            case 1: return (ok(), chunkedBody(["retry: 20\nid: a\ndata: first\n\n", "id: b\ndata: second\n\n"]))
            case 2: return (ok(), chunkedBody(["data: partial"], thenFail: TransportError(.connectionLost, "reset")))
            default: return (ok(), chunkedBody(["id: c\ndata: third\n\n"]))
            }
        }
        // The delay the stream waits before each reconnection is the iterator's
        // `reconnectionDelay`: the server's 20 ms from its first event on, not the 30 s default.
        // (Checked on the value, not on a clock: a loaded CI machine can stall a test for 20 s.)
        var iterator = try await client.events(for: Request<Void>(path: "/sse"), reconnection: .automatic(defaultDelay: .seconds(30), minDelay: .milliseconds(10))).makeAsyncIterator()
        #expect(iterator.reconnectionDelay == .seconds(30))
        var data: [String] = []
        var delays: [Duration] = []
        while data.count < 3, let event = try await iterator.next() {
            data.append(event.data ?? "")
            delays.append(iterator.reconnectionDelay)
        }
        #expect(data == ["first", "second", "third"])
        #expect(delays == [.milliseconds(20), .milliseconds(20), .milliseconds(20)])
        let lastIDs = transport.requests.map { $0.headerFields[HTTPField.Name("Last-Event-ID")!] }
        #expect(lastIDs == [nil, "b", "b"])
    }

    @Test("an id longer than 1 KiB is ignored: it is never sent back as a Last-Event-ID header of that size")
    func hugeIDIsIgnored() async throws {
        let huge = String(repeating: "i", count: 40_000)
        let (client, transport) = scriptedClient { _, call in
            call == 1 ? (ok(), chunkedBody(["retry: 1\nid: ok\ndata: a\n\n", "id: \(huge)\ndata: b\n\n"])) : (ok(), chunkedBody(["data: c\n\n"]))
        }
        var iterator = try await client.events(for: Request<Void>(path: "/sse"), reconnection: .automatic()).makeAsyncIterator()
        var data: [String] = []
        while data.count < 3, let event = try await iterator.next() { data.append(event.data ?? "") }
        #expect(data == ["a", "b", "c"])
        #expect(iterator.lastEventID == "ok")
        #expect(transport.requests.map { $0.headerFields[HTTPField.Name("Last-Event-ID")!] } == [nil, "ok"])
    }

    @Test("a server's retry delay is capped: retry: 9223372036854775807 cannot park the stream for ever")
    func retryIsCapped() async throws {
        let (client, _) = scriptedClient { _, _ in (ok(), chunkedBody(["retry: 9223372036854775807\ndata: x\n\n", "retry: 86400000\ndata: y\n\n"])) }
        var iterator = try await client.events(for: Request<Void>(path: "/sse"), reconnection: .automatic()).makeAsyncIterator()
        #expect(try await iterator.next()?.data == "x")
        #expect(iterator.reconnectionDelay <= .seconds(60))
        #expect(try await iterator.next()?.data == "y")
        #expect(iterator.reconnectionDelay <= .seconds(60), "a day's delay is capped too")
    }

    @Test("a stub's whole event-stream body is read event by event, under the client's size limit")
    func wholeBodyFromStub() async throws {
        let stub = StubTransport()
        stub.on(.get, "/sse", .data(Data("data: one\n\ndata: two\n\n".utf8), contentType: "text/event-stream"))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: stub)
        var data: [String] = []
        for try await event in try await client.events(for: Request<Void>(path: "/sse")) { data.append(event.data ?? "") }
        #expect(data == ["one", "two"])
    }

    @Test("a server's retry: 0 is raised to the policy's minDelay: a server that closes after each event cannot make a reconnect loop")
    func retryHasAFloor() async throws {
        let (client, transport) = scriptedClient { _, call in (ok(), chunkedBody(["retry: 0\ndata: \(call)\n\n"])) }
        var iterator = try await client.events(for: Request<Void>(path: "/sse"), reconnection: .automatic(minDelay: .milliseconds(30))).makeAsyncIterator()
        #expect(try await iterator.next()?.data == "1")
        #expect(iterator.reconnectionDelay == .milliseconds(30))
        #expect(try await iterator.next()?.data == "2")
        #expect(iterator.reconnectionDelay == .milliseconds(30))
        #expect(transport.requests.count == 2)
        // The default floor, and a policy's own default delay left as it is.
        #expect(EventStreamReconnection.automatic().minDelay == .milliseconds(100))
        var fast = try await client.events(for: Request<Void>(path: "/sse"), reconnection: .automatic(defaultDelay: .milliseconds(5))).makeAsyncIterator()
        #expect(fast.reconnectionDelay == .milliseconds(5))
        #expect(try await fast.next() != nil)
        #expect(fast.reconnectionDelay == .milliseconds(100))
        // A cap below the floor does not lower it.
        var capped = try await client.events(for: Request<Void>(path: "/sse"), reconnection: .automatic(maxDelay: .zero)).makeAsyncIterator()
        #expect(try await capped.next() != nil)
        #expect(capped.reconnectionDelay == .milliseconds(100))
    }

    @Test("with no cap on the delay (maxDelay of Int64.max seconds), a server's huge retry waits, cancellably, instead of trapping the process")
    func uncappedRetryDoesNotTrap() async throws {
        let (client, _) = scriptedClient { _, _ in (ok(), chunkedBody(["retry: 9223372036854775807\ndata: x\n\n"])) }
        let listening = Task {
            var iterator = try await client.events(for: Request<Void>(path: "/sse"), reconnection: .automatic(maxDelay: .seconds(Int64.max))).makeAsyncIterator()
            #expect(try await iterator.next()?.data == "x")
            return try await iterator.next()?.data   // reconnects after the server's delay: waits
        }
        try await Task.sleep(for: .milliseconds(100))
        listening.cancel()
        await #expect(throws: CancellationError.self) { try await listening.value }
    }

    @Test("a default delay above maxDelay is capped too")
    func defaultDelayIsCapped() async throws {
        let (client, _) = scriptedClient { _, _ in (ok(), chunkedBody(["data: x\n\n"])) }
        let iterator = try await client.events(for: Request<Void>(path: "/sse"),
                                               reconnection: .automatic(defaultDelay: .seconds(3_600), maxDelay: .seconds(5))).makeAsyncIterator()
        #expect(iterator.reconnectionDelay == .seconds(5))
    }

    @Test("stops reconnecting after maxAttempts connections without an event")
    func givesUp() async throws {
        let (client, transport) = scriptedClient { _, call in
            call == 1 ? (ok(), chunkedBody(["data: only\n\n"])) : (ok(), chunkedBody([]))
        }
        var count = 0
        for try await _ in try await client.events(for: Request<Void>(path: "/sse"), reconnection: .automatic(defaultDelay: .milliseconds(1), maxAttempts: 2)) {
            count += 1
        }
        #expect(count == 1)
        #expect(transport.requests.count == 3)
    }

    @Test("a POST stream is not reconnected (it may not be sent twice) unless it carries an Idempotency-Key or opts in with retry: .always")
    func postIsNotReconnected() async throws {
        let (client, transport) = scriptedClient { _, call in
            call == 1 ? (ok(), chunkedBody(["data: only\n\n"])) : (ok(), chunkedBody([]))
        }
        let policy = EventStreamReconnection.automatic(defaultDelay: .milliseconds(1), maxAttempts: 2)
        var count = 0
        for try await _ in try await client.events(for: Request<Void>(method: .post, path: "/chat", body: .json(["q": "hi"])), reconnection: policy) {
            count += 1
        }
        #expect(count == 1)
        #expect(transport.requests.count == 1)
        var options = RequestOptions()
        options.retry = .always
        for try await _ in try await client.events(for: Request<Void>(method: .post, path: "/chat", body: .json(["q": "hi"]), options: options), reconnection: policy) {}
        #expect(transport.requests.count == 1 + 3)
    }

    @Test("a GET stream whose options say retry: .never still reconnects: that option is about retrying failures")
    func retryNeverStillReconnects() async throws {
        let (client, transport) = scriptedClient { _, call in
            call == 1 ? (ok(), chunkedBody(["data: only\n\n"])) : (ok(), chunkedBody([]))
        }
        var options = RequestOptions()
        options.retry = .never
        for try await _ in try await client.events(for: Request<Void>(path: "/sse", options: options),
                                                   reconnection: .automatic(defaultDelay: .milliseconds(1), maxAttempts: 2)) {}
        #expect(transport.requests.count == 3)
    }

    @Test("an HTTP error on reconnection ends the stream with that error")
    func httpErrorOnReconnect() async throws {
        let (client, _) = scriptedClient { _, call in
            call == 1 ? (ok(), chunkedBody(["data: one\n\n"])) : (HTTPResponse(status: .serviceUnavailable), HTTPBody("down"))
        }
        var count = 0
        await #expect {
            for try await _ in try await client.events(for: Request<Void>(path: "/sse"), reconnection: .automatic(defaultDelay: .milliseconds(1))) {
                count += 1
            }
        } throws: { ($0 as? APIError)?.statusCode == 503 }
        #expect(count == 1)
    }

    @Test("204 No Content means no stream and no reconnection")
    func noContent() async throws {
        let (client, transport) = scriptedClient { _, _ in (HTTPResponse(status: .noContent), nil) }
        var count = 0
        for try await _ in try await client.events(for: Request<Void>(path: "/sse", options: RequestOptions(acceptableStatusCodes: [200, 204])),
                                                   reconnection: .automatic(defaultDelay: .milliseconds(1))) {
            count += 1
        }
        #expect(count == 0)
        #expect(transport.requests.count == 1)
    }
}
