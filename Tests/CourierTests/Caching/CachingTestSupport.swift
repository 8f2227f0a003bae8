import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// An origin server in memory: answers with what the test's responder says, and records each
/// request it got.
final class CacheOrigin: Sendable {
    typealias Responder = @Sendable (_ request: HTTPRequest, _ call: Int) -> (HTTPResponse.Status, [(HTTPField.Name, String)], String)
    private let log = Locked<[HTTPRequest]>([])
    private let responder: Locked<Responder>

    init(_ responder: @escaping Responder) { self.responder = Locked(responder) }

    var requests: [HTTPRequest] { log.current }
    var count: Int { log.current.count }
    func respond(with responder: @escaping Responder) { self.responder.withLock { $0 = responder } }

    var transport: MiddlewareTestTransport {
        MiddlewareTestTransport { request, _, _ in
            let call = self.log.withLock { log -> Int in
                log.append(request)
                return log.count
            }
            let (status, fields, body) = self.responder.current(request, call)
            var headerFields = HTTPFields()
            for (name, value) in fields { headerFields.append(HTTPField(name: name, value: value)) }
            return (HTTPResponse(status: status, headerFields: headerFields), HTTPBody(body))
        }
    }
}

/// What the cache middleware suites share: a clock the test moves, and a cache, client and
/// request built around it.
protocol CachingTestBed {
    var clock: ManualClock { get }
}

extension CachingTestBed {
    func cache(_ store: any HTTPCacheStore = MemoryCacheStore(), namespace: String = "default", policy: CachePolicy = .useProtocol,
               stale: CachingMiddleware.StaleResponses = []) -> CachingMiddleware {
        let clock = self.clock
        return CachingMiddleware(store: store, namespace: namespace, policy: policy, staleResponses: stale, clock: clock)
    }

    func client(_ origin: CacheOrigin, _ middleware: [any Middleware]) -> APIClient {
        MiddlewareFixtures.client(origin.transport, middleware)
    }

    func get(_ path: String = "/items", headers: RequestHeaders = [:], options: RequestOptions = RequestOptions()) -> Request<String> {
        MiddlewareFixtures.text(.get, RequestPath(verbatim: path), headers: headers, options: options)
    }

    func date(_ offset: TimeInterval = 0) -> String {
        CacheFreshnessTests.httpDate(clock.now().addingTimeInterval(offset))
    }
}
