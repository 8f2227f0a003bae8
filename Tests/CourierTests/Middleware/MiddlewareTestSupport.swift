import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A transport made of a closure, for tests that need bodies the stub cannot make.
struct MiddlewareTestTransport: Transport {
    let handler: @Sendable (HTTPRequest, HTTPBody?, RequestContext) async throws -> (HTTPResponse, HTTPBody?)
    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        try await handler(request, body, context)
    }
}

/// A middleware made of a closure (to look at what the chain passes on).
struct MiddlewareTestSpy: Middleware {
    let body: @Sendable (HTTPRequest, HTTPBody?, RequestContext, HTTPHandler) async throws -> (HTTPResponse, HTTPBody?)
    func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
        try await self.body(request, body, context, next)
    }
}

enum MiddlewareFixtures {
    static let baseURL = URL(string: "https://api.example.com/v1")!

    /// A refresh timeout that only catches a hang: the suite runs on loaded 2-core machines,
    /// where a test process has stalled for 20 s, and the tests that use it are not about the
    /// refresh's own limit (TokenDeadlineTests are, on their own clock).
    static let refreshHangGuard: Duration = .seconds(300)

    /// A refresher over `provider` with ``refreshHangGuard``.
    static func refresher(_ provider: some TokenProvider) -> TokenRefresher {
        TokenRefresher(provider: provider, refreshTimeout: refreshHangGuard)
    }

    static func client(_ transport: any Transport, _ middleware: [any Middleware], timeout: Duration = .seconds(60)) -> APIClient {
        APIClient(configuration: APIConfiguration(baseURL: baseURL, timeout: timeout), transport: transport, middleware: middleware)
    }

    /// A request whose response is the body as text.
    static func text(_ method: HTTPRequest.Method = .get, _ path: RequestPath, body: RequestBody? = nil,
                     headers: RequestHeaders = [:], options: RequestOptions = RequestOptions()) -> Request<String> {
        Request(method: method, path: path, headers: headers, body: body, options: options) { _, data, _ in
            String(decoding: data, as: UTF8.self)
        }
    }

    /// A body that can be iterated only once.
    static func singlePassBody(_ text: String) -> HTTPBody {
        let (stream, continuation) = AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.makeStream()
        continuation.yield(ArraySlice(text.utf8))
        continuation.finish()
        return HTTPBody(stream, length: .known(Int64(text.utf8.count)), iterationBehavior: .single)
    }
}

/// Waits until `count` tasks have arrived, then lets them all go.
actor MiddlewareTestBarrier {
    private let count: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { self.count = count }

    func arrive() async {
        arrived += 1
        if arrived >= count {
            let all = waiting
            waiting = []
            all.forEach { $0.resume() }
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}
