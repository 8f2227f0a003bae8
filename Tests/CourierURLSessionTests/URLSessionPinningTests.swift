import CourierURLSession
import Foundation
import Testing

@Suite("URLSessionTransport and pinning")
struct URLSessionPinningTests {
    @Test("asking URLSessionTransport to pin is a clear configuration error, never ignored")
    func pinningRefused() {
        #expect {
            _ = try URLSessionTransport(pinning: URLSessionPinning(pins: ["api.example.com": ["AAAA"]]))
        } throws: { error in
            guard let error = error as? URLSessionTransportConfigurationError else { return false }
            return error.description.contains("PinningAsyncHTTPClientTransport")
        }
    }
}
