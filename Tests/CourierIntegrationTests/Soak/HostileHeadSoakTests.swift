import Courier
import CourierTestServer
import CourierURLSession
import Foundation
import Testing

/// The soak's accounting for a hostile head over URLSession on Linux: the caller's deadline
/// ends the request at once (HostileHeadDeadlineTests), but FoundationNetworking goes on parsing
/// the abandoned head for seconds to a minute; once it is done, nothing of the request may be
/// left. Part of the soak (guarded by `COURIER_SOAK`, serialized with it): its child process
/// waits out the parse, and run beside the whole suite on two cores that minute-long exit test
/// stalled the suite's timers (30 tests timed out at 60 s in a fresh-clone run; the parent waits
/// for its child on a thread of its cooperative pool, it seems). `.ci/run`'s soak step runs it.
extension SoakTests {
    @Test("after a hostile head's deadline, the abandoned URLSession task ends and leaves nothing: no task, no handler, no file descriptor")
    func nothingLeftAfterTheAbandonedParse() async {
        await #expect(processExitsWith: .success) {
            try await withFaultServer { (server: FaultServer) async throws in
                let transport = URLSessionTransport()
                let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(2)), transport: transport)
                _ = try await client.send(Request<Data>(path: "/ok"))        // the pool's connection, open before counting
                let before = SoakTests.openFileDescriptors()
                do {
                    _ = try await client.send(Request<Data>(path: "/short-headers", query: [.init(name: "n", value: "40000")]))
                    exit(2)
                } catch {}
                // 40,000 lines: FoundationNetworking parses them for several times the 2 s
                // deadline (quadratic: about a third of 65,000's time), and goes on after it; then
                // its task must end and nothing of it stay behind. (Fewer lines keep CI's soak
                // step short; more change nothing checked here.)
                var tasks = -1
                for _ in 0..<1_200 {
                    tasks = await withCheckedContinuation { continuation in
                        transport.session.getAllTasks { continuation.resume(returning: $0.count) }
                    }
                    if tasks == 0, transport.inFlightTaskCount == 0 { break }
                    try await Task.sleep(for: .milliseconds(200))
                }
                guard tasks == 0 else { exit(3) }                              // the session still holds the task
                guard transport.inFlightTaskCount == 0 else { exit(4) }        // the transport still tracks it
                var after = SoakTests.openFileDescriptors()
                for _ in 0..<50 where after > before + 1 {
                    try await Task.sleep(for: .milliseconds(100))
                    after = SoakTests.openFileDescriptors()
                }
                guard after <= before + 1 else { exit(5) }                     // its connection was left open
            }
        }
    }
}
