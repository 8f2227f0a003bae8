import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import Foundation
import Testing

/// The AsyncHTTPClient transport's compressed responses against a real server: what it asks for,
/// and that a gzip body arrives decoded whoever inflates it. (The inflater itself is tested
/// without a server, in `CourierAsyncHTTPClientTests`' `ResponseInflaterTests`.)
@Suite("AsyncHTTPClient: compressed responses over the wire")
struct ResponseCompressionTests {
    @Test("a transport over your own client built from recommendedConfiguration() asks for gzip and deflate")
    func ownClientAsksForCompression() async throws {
        try await withTestServer { (server: TestServer) async throws in
            let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: AsyncHTTPClientTransport.recommendedConfiguration())
            do {
                let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: AsyncHTTPClientTransport(client: http))
                let echo = try await client.send(Request<Echo>(path: "/echo"))
                let advertised = Set((echo.headers["accept-encoding"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                #expect(advertised == ["gzip", "deflate"])
            } catch {
                try await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }

    @Test("a gzip body is decoded whoever inflates it: the transport (the client's decompression off) or the client (on)",
          arguments: [false, true])
    func decodedEitherWay(clientDecompresses: Bool) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            var configuration = AsyncHTTPClientTransport.recommendedConfiguration()
            if clientDecompresses { configuration.decompression = .enabled(limit: .none) }
            let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            do {
                let transport = AsyncHTTPClientTransport(client: http, requestsCompression: true, clientReadTimeout: .seconds(30))
                let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: transport)
                let data = try await client.send(Request<Data>(path: "/compressed-json", query: [.init(name: "kb", value: "512")]))
                #expect(data.count >= 512 * 1024)
                #expect(data.first == UInt8(ascii: "[") && data.last == UInt8(ascii: "]"))
            } catch {
                try await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }
}
