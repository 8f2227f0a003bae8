import Courier
import CourierTestServer
import Foundation
import PropertyBased
import Testing

/// Any string survives the trip to a server that echoes the raw request target: a path value
/// stays one segment and decodes back to itself; query names and values decode back to
/// themselves, in order.
@Suite("Encoding properties, checked on the wire")
struct EncodingPropertyTests {
    /// Strings mixing every ASCII character (controls, `/ ? # % & = + ; ,` and space) with
    /// Latin-1 and characters outside the Basic Multilingual Plane.
    static let hostileStrings = Gen.oneOf(
        Gen.ascii.string(of: 1...12),
        Gen.latin1.string(of: 1...8),
        Gen<UnicodeScalar>.unicodeScalar(in: "\u{1F300}"..."\u{1F6FF}").map(Character.init).string(of: 1...3)
    )

    @Test("a path value is one segment that decodes back to itself", arguments: TransportKind.allCases)
    func pathSegments(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            await propertyCheck(count: 60, input: Self.hostileStrings) { value in
                guard value != ".", value != ".." else { return }
                do {
                    let echo = try await client.send(Request<Echo>(path: "/echo/{value}/end", pathParameters: ["value": value]))
                    let segments = echo.path.split(separator: "/", omittingEmptySubsequences: false)
                    #expect(segments.count == 4, "'\(value)' was split into \(segments)")
                    #expect(segments.count == 4 && String(segments[2]).removingPercentEncoding == value)
                    #expect(echo.query == nil)
                } catch {
                    Issue.record("'\(value.debugDescription)' failed: \(error)")
                }
            }
        }
    }

    @Test("query names and values decode back to themselves, in order", arguments: TransportKind.allCases)
    func queryItems(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            await propertyCheck(count: 60, input: Self.hostileStrings, Self.hostileStrings) { name, value in
                do {
                    let echo = try await client.send(Request<Echo>(path: "/echo", query: [
                        .init(name: name, value: value), .init(name: "z", value: "last"),
                    ]))
                    let pairs = (echo.query ?? "").split(separator: "&", omittingEmptySubsequences: false).map { pair in
                        pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { String($0).removingPercentEncoding }
                    }
                    #expect(pairs.count == 2, "query '\(echo.query ?? "")' for \(name.debugDescription)=\(value.debugDescription)")
                    if pairs.count == 2 {
                        #expect(pairs[0] == [name, value])
                        #expect(pairs[1] == ["z", "last"])
                    }
                } catch {
                    Issue.record("\(name.debugDescription)=\(value.debugDescription) failed: \(error)")
                }
            }
        }
    }
}
