import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The idle timeout on a request with a body follows what the transport reports: a transport
/// that reports movement is cut once it stops; one that never begins reporting (a custom
/// transport, a stub) is left to the total deadline.
@Suite("UploadActivity: the idle timeout on request bodies")
struct UploadActivityTests {
    /// A transport that, for a request with a body, waits `hold` before answering; `reports`
    /// makes it begin an activity report and `moves` times tick it, 100 ms apart, first.
    private func transport(hold: Duration, reports: Bool, moves: Int = 0) -> MiddlewareTestTransport {
        MiddlewareTestTransport { _, body, context in
            if body != nil, reports, let activity = context.bodyChannels.uploadActivity {
                activity.begin()
                for _ in 0..<moves {
                    try await Task.sleep(for: .milliseconds(100))
                    activity.moved()
                }
            }
            try await Task.sleep(for: hold)
            return (HTTPResponse(status: .ok), HTTPBody("done"))
        }
    }

    private func post(idle: Duration) -> Request<String> {
        var options = RequestOptions()
        options.idleTimeout = idle
        return MiddlewareFixtures.text(.post, "/upload", body: .data(Data("payload".utf8), contentType: "application/octet-stream"), options: options)
    }

    @Test("a transport that begins reporting and then goes quiet is cut after the idle limit")
    func quietAfterBegin() async throws {
        // The transport holds for 10 minutes (its sleep ends when the client gives up): the bound
        // below is a hang guard that a loaded machine's stalls stay far inside.
        let client = MiddlewareFixtures.client(transport(hold: .seconds(600), reports: true), [], timeout: .seconds(900))
        let elapsed = await ContinuousClock().measure {
            let error = await #expect(throws: APIError.self) { try await client.send(post(idle: .milliseconds(300))) }
            #expect(error?.kind == .timeout)
            #expect("\(error.map { String(describing: $0) } ?? "")".contains("idle timeout"))
        }
        #expect(elapsed < .seconds(300), "a hang guard: the transport holds for 600 s")
    }

    @Test("movements each within the limit keep the exchange alive past the limit")
    func steadyMovement() async throws {
        // 15 moves 100 ms apart, then 100 ms to answer: 1.6 s in all under a 1 s limit. A loaded
        // machine has stalled a test process for seconds, which no idle limit survives: up to
        // five attempts, of which one must succeed. A watch that movement does not reset fails
        // all five.
        let client = MiddlewareFixtures.client(transport(hold: .milliseconds(100), reports: true, moves: 15), [])
        var failures: [String] = []
        for _ in 0..<5 {
            do {
                #expect(try await client.send(post(idle: .seconds(1))) == "done")
                break
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.count < 5, "every steady upload was cut: \(failures)")
    }

    @Test("a transport that never reports is left to the total deadline")
    func unreportedUpload() async throws {
        let client = MiddlewareFixtures.client(transport(hold: .milliseconds(800), reports: false), [])
        #expect(try await client.send(post(idle: .milliseconds(200))) == "done")
    }
}
