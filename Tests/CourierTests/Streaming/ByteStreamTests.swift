import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("bytes(for:)")
struct ByteStreamTests {
    @Test("yields the chunks as they arrive")
    func chunks() async throws {
        let (client, _) = scriptedClient { _, _ in (ok([.contentLength: "6"]), chunkedBody(["ab", "cd", "ef"])) }
        let stream = try await client.bytes(for: Request<Data>(path: "/b"))
        #expect(stream.expectedLength == 6)
        var chunks: [String] = []
        for try await chunk in stream { chunks.append(String(decoding: chunk, as: UTF8.self)) }
        #expect(chunks == ["ab", "cd", "ef"])
    }

    @Test("a status error is thrown before any byte is read")
    func statusError() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/b", .status(500, message: "boom"))
        await #expect { try await client.bytes(for: Request<Data>(path: "/b")) } throws: { ($0 as? APIError)?.statusCode == 500 }
    }

    @Test("transport failures mid-stream become APIError")
    func midStreamFailure() async throws {
        let (client, _) = scriptedClient { _, _ in (ok(), chunkedBody(["ab"], thenFail: TransportError(.connectionLost, "reset"))) }
        let stream = try await client.bytes(for: Request<Data>(path: "/b"))
        var received = 0
        await #expect {
            for try await chunk in stream { received += chunk.count }
        } throws: { error in
            if (error as? APIError)?.kind == .network { return true }
            return false
        }
        #expect(received == 2)
    }

    @Test("the request's size limit ends the stream")
    func limit() async throws {
        let (client, _) = scriptedClient { _, _ in (ok(), chunkedBody(["abc", "def"])) }
        let stream = try await client.bytes(for: Request<Data>(path: "/b", options: RequestOptions(maxResponseSize: 4)))
        await #expect {
            for try await _ in stream {}
        } throws: { error in
            if (error as? APIError)?.kind == .resourceTooLarge { return true }
            return false
        }
    }

    @Test("breaking out of an endless stream ends it")
    func endless() async throws {
        let (client, _) = scriptedClient { _, _ in (ok(), chunkedBody(["a", "b"], thenHang: true)) }
        let stream = try await client.bytes(for: Request<Data>(path: "/infinite"))
        var count = 0
        for try await _ in stream {
            count += 1
            if count == 2 { break }
        }
        #expect(count == 2)
    }
    @Test("an error status whose body is over 64 KiB is quoted by its start, not dropped")
    func largeErrorBodyQuoted() async {
        let (client, _) = scriptedClient { _, _ in
            (HTTPResponse(status: .internalServerError), chunkedBody([String(repeating: "x", count: 70_000)]))
        }
        await #expect {
            try await client.bytes(for: Request<Data>(path: "/b"))
        } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .httpError, apiError.statusCode == 500, case let body = apiError.body else { return false }
            return body.count == 64 * 1024
        }
    }
}
