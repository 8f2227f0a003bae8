import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// `HTTPBody.holding(_:)`: the body a transport returns beside the `Data` it leaves whole for
/// the client; it must read like any in-memory body when a middleware or a cache reads it.
@Suite("An HTTPBody holding Data")
struct HTTPBodyHoldingTests {
    @Test("reads the bytes, with their length known, as often as asked")
    func readsAgain() async throws {
        let data = Data("{\"id\":42}".utf8)
        let body = HTTPBody.holding(data)
        #expect(body.length == .known(Int64(data.count)))
        #expect(body.iterationBehavior == .multiple)
        let first = try await Data(collecting: body, upTo: 100)
        let second = try await Data(collecting: body, upTo: 100)
        #expect(first == data)
        #expect(second == data)
    }

    @Test("an empty Data is an empty body, and the size limit still applies to a large one")
    func emptyAndLimited() async throws {
        #expect(try await Data(collecting: HTTPBody.holding(Data()), upTo: 10).isEmpty)
        await #expect(throws: (any Error).self) {
            try await Data(collecting: HTTPBody.holding(Data(repeating: 1, count: 64)), upTo: 16)
        }
    }

    @Test("a middleware reads it, and the client still takes the bytes left for it")
    func collectedAfterAMiddlewareRead() async throws {
        let transport = MiddlewareTestTransport { _, _, context in
            let body = HTTPBody.holding(Data("whole".utf8))
            // Other bytes than the body's, so the test sees which the client used.
            context.bodyChannels.wholeResponse?.leave(Data("left".utf8), for: body)
            return (HTTPResponse(status: .ok), body)
        }
        let reading = MiddlewareTestSpy { request, body, context, next in
            let (response, returned) = try await next(request, body, context)
            let text = try await String(collecting: try #require(returned), upTo: 100)
            #expect(text == "whole")
            return (response, returned)
        }
        let client = MiddlewareFixtures.client(transport, [reading])
        let (_, data) = try await client.data(for: Request<Data>(path: "/x"))
        #expect(String(decoding: data, as: UTF8.self) == "left")
    }
}
