import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import Testing

/// A response that has no body — a `304`, a `204`, the answer to `HEAD` — leaves its connection
/// in the pool for the next request. (The AsyncHTTPClient transport once returned such a head
/// without finishing the exchange; the client then closed the connection whenever the end of the
/// response had not arrived yet, and a cache revalidating with `304`s opened a new connection
/// for one request in six.)
@Suite("Connection reuse after responses without a body")
struct BodilessResponseReuseTests {
    static let rounds = 40

    @Test("40 sequential 304s, 204s and HEADs use one connection", arguments: TransportKind.allCases)
    func reused(_ kind: TransportKind) async throws {
        try await withFaultServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(60)), transport: kind.makeTransport())
            var options = RequestOptions()
            options.acceptableStatusCodes = [200, 204, 304]
            let notModified = Request<Data>(path: "/no-body", query: [.init(name: "status", value: "304")], options: options)
            let noContent = Request<Data>(path: "/no-body", query: [.init(name: "status", value: "204")], options: options)
            let head = Request<Data>(method: .head, path: "/no-body", query: [.init(name: "status", value: "200"), .init(name: "length", value: "11")], options: options)
            for _ in 0..<Self.rounds {
                for request in [notModified, noContent, head] {
                    let (response, body) = try await client.data(for: request)
                    #expect([200, 204, 304].contains(response.status.code))
                    #expect(body.isEmpty)
                }
            }
            #expect(server.requestCount == 3 * Self.rounds)
            #expect(server.connectionCount == 1, "\(server.connectionCount) connections for \(3 * Self.rounds) requests")
        }
    }
}
