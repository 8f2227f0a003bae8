import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Record and replay")
struct RecordReplayTests {
    private func cassetteURL() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("courier-cassette-\(UUID().uuidString).json")
    }

    @Test("a recording redacts secrets and a replay answers from it without the network")
    func recordThenReplay() async throws {
        let file = cassetteURL()
        defer { try? FileManager.default.removeItem(at: file) }

        // Record against a "real" transport (a stub here; the loopback test uses a server).
        let live = StubTransport()
        live.on(.get, "/users/{id}", StubResponse.json(User(id: 1, name: "Ada")).header(.setCookie, "session=abc"))
        live.on(.post, "/users", .json(User(id: 2, name: "Bob"), status: 201))
        let recorder = RecordingTransport(live, file: file)
        let recording = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: recorder)
        let request = Request<User>(path: "/users/1", query: [.init(name: "api_key", value: "SECRET-KEY")])
            .header("Authorization", "Bearer SECRET-TOKEN")
        #expect(try await recording.send(request).name == "Ada")
        #expect(try await recording.send(Request<User>(method: .post, path: "/users", body: .json(NewUser(name: "Bob")))).id == 2)

        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("SECRET-KEY"))
        #expect(!text.contains("SECRET-TOKEN"))
        #expect(!text.contains("session=abc"))
        #expect(text.contains("api_key=<redacted>"))
        let cassette = try Cassette(contentsOf: file)
        #expect(cassette.exchanges.count == 2)
        #expect(cassette.exchanges[1].request.body == #"{"name":"Bob"}"#)

        // Replay: same answers, no network, whatever key the request carries now.
        let replay = try ReplayTransport(file: file)
        let replaying = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: replay)
        let again = Request<User>(path: "/users/1", query: [.init(name: "api_key", value: "OTHER-KEY")])
        #expect(try await replaying.send(again) == User(id: 1, name: "Ada"))
        let created = try await replaying.response(for: Request<User>(method: .post, path: "/users", body: .json(NewUser(name: "Bob"))))
        #expect(created.statusCode == 201)
        #expect(live.requests.count == 2)
    }

    @Test("requests recorded at once all reach the file: a slower writer never replaces it with fewer exchanges")
    func concurrentRecording() async throws {
        let file = cassetteURL()
        defer { try? FileManager.default.removeItem(at: file) }
        let live = StubTransport()
        live.on(.get, "/items/{id}") { request in
            try? await Task.sleep(for: .microseconds(Int.random(in: 0...2_000)))
            return .text(request.target)
        }
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
                               transport: RecordingTransport(live, file: file))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in 0..<60 { group.addTask { _ = try await client.send(Request<String>(path: "/items/\(id)")) } }
            try await group.waitForAll()
        }
        #expect(try Cassette(contentsOf: file).exchanges.count == 60)
    }

    @Test("an unknown request fails clearly, naming it and what was recorded")
    func unknownRequest() async throws {
        let replay = ReplayTransport(cassette: Cassette(exchanges: [
            .init(request: .init(method: "GET", url: "https://api.example.com/known", status: nil, headers: [], body: ""),
                  response: .init(method: nil, url: nil, status: 200, headers: [], body: "ok")),
        ]))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: replay)
        #expect(try await client.send(Request<String>(path: "/known")) == "ok")
        await #expect {
            try await client.send(Request<String>(path: "/unknown"))
        } throws: { error in
            let description = "\((error as? APIError)?.underlyingError ?? error)"
            return description.contains("GET https://api.example.com/unknown") && description.contains("GET https://api.example.com/known")
        }
    }

    @Test("repeated requests replay in the recorded order; the last repeats")
    func order() async throws {
        let live = StubTransport()
        live.on(.get, "/counter", [.text("1"), .text("2")])
        let file = cassetteURL()
        defer { try? FileManager.default.removeItem(at: file) }
        let recorder = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
                                 transport: RecordingTransport(live, file: file))
        _ = try await recorder.send(Request<String>(path: "/counter"))
        _ = try await recorder.send(Request<String>(path: "/counter"))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
                               transport: try ReplayTransport(file: file))
        var answers: [String] = []
        for _ in 0..<3 { answers.append(try await client.send(Request<String>(path: "/counter"))) }
        #expect(answers == ["1", "2", "2"])
    }

    @Test("a redacted query value that changes every time (a timestamp) still replays the answers in the recorded order")
    func orderWithRedactedValue() async throws {
        let live = StubTransport()
        live.on(.get, "/poll", [.text("pending"), .text("pending"), .text("done")])
        let file = cassetteURL()
        defer { try? FileManager.default.removeItem(at: file) }
        let base = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
        let recorder = APIClient(configuration: base, transport: RecordingTransport(live, file: file, redactQueryItems: ["ts"]))
        for ts in 1...3 { _ = try await recorder.send(Request<String>(path: "/poll").query("ts", "\(ts)")) }
        let client = APIClient(configuration: base, transport: try ReplayTransport(file: file))
        var answers: [String] = []
        for ts in 7...9 { answers.append(try await client.send(Request<String>(path: "/poll").query("ts", "\(ts)"))) }
        #expect(answers == ["pending", "pending", "done"])
    }

    @Test("binary bodies survive as base64")
    func binary() async throws {
        let live = StubTransport()
        let bytes = Data([0xFF, 0x00, 0xFE, 0x80])
        live.on(.get, "/blob", .data(bytes))
        let file = cassetteURL()
        defer { try? FileManager.default.removeItem(at: file) }
        let base = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
        _ = try await APIClient(configuration: base, transport: RecordingTransport(live, file: file)).send(Request<Data>(path: "/blob"))
        #expect(try Cassette(contentsOf: file).exchanges.first?.response.bodyEncoding == "base64")
        #expect(try await APIClient(configuration: base, transport: ReplayTransport(file: file)).send(Request<Data>(path: "/blob")) == bytes)
    }

    @Test("a response over the client's size limit fails as resourceTooLarge while recording, and nothing is written")
    func overTheLimit() async throws {
        let live = StubTransport()
        live.on(.get, "/big", .data(Data(repeating: 0x78, count: 1_000)))
        let file = cassetteURL()
        defer { try? FileManager.default.removeItem(at: file) }
        let base = APIConfiguration(baseURL: URL(string: "https://api.example.com")!, maxResponseSize: 16)
        let client = APIClient(configuration: base, transport: RecordingTransport(live, file: file))
        let error = await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "/big")) }
        #expect(error?.kind == .resourceTooLarge)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}

@Suite("Integration environment")
struct IntegrationEnvironmentTests {
    @Test("reads API_BASE_URL and API_KEY")
    func reads() throws {
        let env = try #require(IntegrationEnvironment(environment: ["API_BASE_URL": "https://api.example.com/v1", "API_KEY": "k"]))
        #expect(env.baseURL.absoluteString == "https://api.example.com/v1")
        #expect(env.apiKey == "k")
    }

    @Test("is absent when a variable is missing, empty or not an http(s) URL")
    func absent() {
        #expect(IntegrationEnvironment(environment: [:]) == nil)
        #expect(IntegrationEnvironment(environment: ["API_BASE_URL": "https://a.example"]) == nil)
        #expect(IntegrationEnvironment(environment: ["API_BASE_URL": "", "API_KEY": "k"]) == nil)
        #expect(IntegrationEnvironment(environment: ["API_BASE_URL": "ftp://a.example", "API_KEY": "k"]) == nil)
    }

    @Test("a live test is skipped without the environment", .requiresIntegrationEnvironment)
    func liveAPI() async throws {
        let env = try #require(IntegrationEnvironment.current)
        let client = APIClient(configuration: APIConfiguration(baseURL: env.baseURL), transport: StubTransport())
        #expect(client.configuration.baseURL == env.baseURL)
    }
}
