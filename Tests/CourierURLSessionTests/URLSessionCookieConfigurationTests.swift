import CourierURLSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

#if canImport(FoundationNetworking)
/// On Linux `URLSessionTransport` stores the response's cookies itself, so its session must accept
/// none. The cookies it keeps are compared with FoundationNetworking's own over a server in
/// `CourierIntegrationTests`' `URLSessionCookieStorageTests`.
@Suite("URLSessionTransport's session cookie configuration")
struct URLSessionCookieConfigurationTests {
    @Test("on Linux the session itself accepts no cookies; the caller's configuration object is left as it was")
    func sessionAcceptsNone() throws {
        let configuration = URLSessionTransport.defaultConfiguration()
        let transport = URLSessionTransport(configuration: configuration)
        #expect(transport.session.configuration.httpCookieAcceptPolicy == .never)
        #expect(configuration.httpCookieAcceptPolicy != .never)
    }
}
#endif
