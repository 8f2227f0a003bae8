import Courier
import HTTPTypes
import Testing

@Suite("Transport-owned header names")
struct TransportOwnedHeadersTests {
    @Test("every framing and connection name is the transport's, in any case; names of the same length or first letter are not")
    func names() {
        for name in ["Content-Length", "transfer-encoding", "CONNECTION", "Keep-Alive", "TE", "Trailer", "Upgrade", "Host",
                     "Proxy-Authorization", "proxy-connection", "Proxy-X"] {
            #expect(TransportOwnedHeaders.contains(HTTPField.Name(name)!), "\(name)")
        }
        for name in ["Accept", "User-Agent", "Content-Type", "Pragma", "Proxy", "X-Proxy-Id", "Hosts", "Tee", "Content-Lengths",
                     "Authorization", "Accept-Encoding", "If-None-Match", "Trailers", "Upgrade-Insecure-Requests"] {
            #expect(!TransportOwnedHeaders.contains(HTTPField.Name(name)!), "\(name)")
        }
    }
}
