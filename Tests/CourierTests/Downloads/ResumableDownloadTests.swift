@testable import Courier
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import Testing

@Suite("Resumable downloads: Range, If-Range and resume tokens, over a scripted transport")
struct ResumableDownloadTests {
    static let content = FakeOrigin.bytes(1000)
    static let tag = "\"v1\""

    /// A client over `origin`, resuming by a RetryMiddleware that waits on `clock`.
    func client(_ origin: FakeOrigin, clock: ManualClock = ManualClock(), maxAttempts: Int = 3,
                        budget: RetryBudget = RetryBudget(minRetriesPerSecond: 1000), retry: Bool = true,
                        logger: Logger? = nil, timeout: Duration = .seconds(60)) -> (APIClient, ScriptedTransport) {
        let transport = ScriptedTransport(origin.script)
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!, timeout: timeout)
        if let logger { configuration.logger = logger }
        let policy = RetryPolicy(maxAttempts: maxAttempts, initialDelay: .milliseconds(10), jitter: .none)
        let middleware: [any Middleware] = retry ? [RetryMiddleware(policy: policy, budget: budget, clock: clock)] : []
        return (APIClient(configuration: configuration, transport: transport, middleware: middleware), transport)
    }

    func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    static let file = Request<Data>(path: "/files/archive.bin")

    func partialFiles(in directory: URL) -> [String] {
        directoryContents(directory).filter { $0.hasSuffix(".courier-download") }
    }

    // MARK: Resuming by itself

    @Test("a download cut twice resumes twice with Range and If-Range, and the file is the content")
    func resumesAfterCuts() async throws {
        try await withDirectory { directory in
            let clock = ManualClock()
            let origin = FakeOrigin(.init(content: Self.content, cuts: [250, 600]))
            let (client, transport) = client(origin, clock: clock)
            let reports = LockedBox<[TransferProgress]>([])
            let destination = directory.appendingPathComponent("archive.bin")
            let result = try await client.download(Self.file, to: destination) { progress in reports.withLock { $0.append(progress) } }
            #expect(try Data(contentsOf: destination) == Data(Self.content))
            #expect(result.resumptions == 2)
            #expect(result.restarts == 0)
            #expect(result.byteCount == 1000)
            #expect(result.bytesReceived == 1000, "no byte received twice")
            let requests = transport.requests
            #expect(requests.map { $0.headerFields[.range] } == [nil, "bytes=250-", "bytes=600-"])
            #expect(requests.map { $0.headerFields[.ifRange] } == [nil, Self.tag, Self.tag])
            #expect(requests.dropFirst().allSatisfy { $0.headerFields[.acceptEncoding] == "identity" })
            #expect(clock.sleeps == [.milliseconds(10), .milliseconds(10)], "each resumption after the policy's backoff, on its clock")
            let completed = reports.withLock { $0 }.map(\.completedBytes)
            #expect(completed == completed.sorted(), "progress goes on from the offset, never back to zero: \(completed)")
            #expect(reports.withLock { $0 }.last == TransferProgress(completedBytes: 1000, totalBytes: 1000))
            #expect(directoryContents(directory) == ["archive.bin"])
        }
    }

    @Test("each resumption is logged with its number and offset")
    func resumptionsAreLogged() async throws {
        try await withDirectory { directory in
            let logging = InMemoryLogHandler()
            let logger = Logger(label: "downloads") { _ in logging }
            let origin = FakeOrigin(.init(content: Self.content, cuts: [100, 200, 300]))
            let (client, _) = client(origin, logger: logger)
            let result = try await client.download(Self.file, to: directory.appendingPathComponent("f"))
            let lines = logging.entries.filter { $0.message.description.hasPrefix("download resuming") }
            #expect(result.resumptions == 3)
            #expect(lines.map { $0.metadata["courier.resumption"]?.description } == ["1", "2", "3"])
            #expect(lines.map { $0.metadata["courier.offset"]?.description } == ["100", "200", "300"])
        }
    }

    @Test("without a RetryMiddleware a cut fails: download(_:to:progress:) removes the partial file, as before")
    func noPolicyNoResumption() async throws {
        try await withDirectory { directory in
            let origin = FakeOrigin(.init(content: Self.content, cuts: [250]))
            let (client, transport) = client(origin, retry: false)
            let error = await #expect(throws: APIError.self) { try await client.download(Self.file, to: directory.appendingPathComponent("f")) }
            #expect(error?.kind == .network)
            #expect(error?.resumeToken == nil)
            #expect(transport.requests.count == 1)
            #expect(directoryContents(directory).isEmpty)
        }
    }

    @Test("failures in a row without a byte are bounded by the policy's attempts")
    func stuckServer() async throws {
        try await withDirectory { directory in
            // Cut at 250, then at 251; from there every answer is cut before its first byte.
            let origin = FakeOrigin(.init(content: Self.content, cuts: [250, 251], cutsEverythingFrom: 251))
            let (client, transport) = client(origin, maxAttempts: 3)
            let error = await #expect(throws: APIError.self) {
                try await client.download(Self.file, to: directory.appendingPathComponent("f"), options: DownloadOptions())
            }
            #expect(error?.kind == .network)
            // The first answer and the one that brought 1 byte made progress; then three in a row without.
            #expect(transport.requests.count == 5)
            #expect(error?.resumeToken?.bytesOnDisk == 251)
        }
    }

    @Test("the retry budget bounds resumptions: when it is spent the download fails with a token")
    func budgetBounds() async throws {
        try await withDirectory { directory in
            let clock = ManualClock()
            let budget = RetryBudget(retryRatio: 0, minRetriesPerSecond: 2, maxBalance: 1, clock: clock)
            let origin = FakeOrigin(.init(content: Self.content, cuts: [100, 200, 300, 400, 500]))
            let (client, transport) = client(origin, clock: clock, budget: budget)
            let error = await #expect(throws: APIError.self) {
                try await client.download(Self.file, to: directory.appendingPathComponent("f"), options: DownloadOptions())
            }
            #expect(transport.requests.count == 3, "two tokens: two resumptions")
            #expect(error?.resumeToken?.bytesOnDisk == 300)
        }
    }

    @Test("a backoff that would pass the download's deadline is not waited for: the download fails at once")
    func deadlineBounds() async throws {
        try await withDirectory { directory in
            let clock = ManualClock()
            let origin = FakeOrigin(.init(content: Self.content, cuts: [250]))
            let transport = ScriptedTransport(origin.script)
            // A deadline far off (a loaded machine must not pass it first), a backoff further still.
            let policy = RetryPolicy(initialDelay: .seconds(3600), maxDelay: .seconds(3600), jitter: .none)
            let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!, timeout: .seconds(120)),
                                   transport: transport, middleware: [RetryMiddleware(policy: policy, clock: clock)])
            let error = await #expect(throws: APIError.self) { try await client.download(Self.file, to: directory.appendingPathComponent("f")) }
            #expect(error?.kind == .network, "the cut's own error")
            #expect(clock.sleeps.isEmpty)
            #expect(transport.requests.count == 1)
        }
    }

    @Test("a request whose options say retry: .never does not resume by itself")
    func retryNever() async throws {
        try await withDirectory { directory in
            let origin = FakeOrigin(.init(content: Self.content, cuts: [250]))
            let (client, transport) = client(origin)
            var request = Self.file
            request.options.retry = .never
            await #expect(throws: APIError.self) { try await client.download(request, to: directory.appendingPathComponent("f")) }
            #expect(transport.requests.count == 1)
        }
    }

    @Test("the transfer's own policy resumes without a RetryMiddleware")
    func ownPolicy() async throws {
        try await withDirectory { directory in
            let clock = ManualClock()
            let origin = FakeOrigin(.init(content: Self.content, cuts: [250]))
            let (client, _) = client(origin, retry: false)
            let options = DownloadOptions(resumption: .policy(RetryPolicy(initialDelay: .milliseconds(1), jitter: .none), clock: clock))
            let destination = directory.appendingPathComponent("f")
            let result = try await client.download(Self.file, to: destination, options: options)
            #expect(result.resumptions == 1)
            #expect(clock.sleeps == [.milliseconds(1)])
            #expect(try Data(contentsOf: destination) == Data(Self.content))
        }
    }

    // MARK: Tokens

    @Test("a failed download keeps its partial file and a token; resuming from the token asks for the rest only")
    func tokenRoundTrip() async throws {
        try await withDirectory { directory in
            let destination = directory.appendingPathComponent("archive.bin")
            let origin = FakeOrigin(.init(content: Self.content, cuts: [250]))
            let (first, _) = client(origin, retry: false)
            let error = await #expect(throws: APIError.self) { try await first.download(Self.file, to: destination, options: DownloadOptions()) }
            let token = try #require(error?.resumeToken)
            #expect(token.bytesOnDisk == 250)
            #expect(token.totalBytes == 1000)
            #expect(token.validator == .entityTag(Self.tag))
            #expect(token.url == "https://api.example.com/files/archive.bin")
            #expect(String(describing: try #require(error)).contains("resumable: 250 of 1000 bytes"))
            #expect(partialFiles(in: directory) == [token.partialFileName])
            // Through JSON, as an app keeps it across launches.
            let kept = try JSONDecoder().decode(DownloadResumeToken.self, from: JSONEncoder().encode(token))
            #expect(kept == token)

            let (second, transport) = client(FakeOrigin(.init(content: Self.content)))
            let reports = LockedBox<[TransferProgress]>([])
            let result = try await second.download(Self.file, to: destination, resumingFrom: kept) { p in reports.withLock { $0.append(p) } }
            #expect(transport.requests.map { $0.headerFields[.range] } == ["bytes=250-"])
            #expect(transport.requests.map { $0.headerFields[.ifRange] } == [Self.tag])
            #expect(result.bytesReceived == 750)
            #expect(reports.withLock { $0 }.first?.completedBytes == 250, "progress starts at the bytes on disk")
            #expect(try Data(contentsOf: destination) == Data(Self.content))
            #expect(directoryContents(directory) == ["archive.bin"])
        }
    }

    @Test("a partial file changed since its token was taken is not appended to: the download starts from zero")
    func tamperedPartialFile() async throws {
        try await withDirectory { directory in
            let destination = directory.appendingPathComponent("archive.bin")
            let (first, _) = client(FakeOrigin(.init(content: Self.content, cuts: [250])), retry: false)
            let error = await #expect(throws: APIError.self) { try await first.download(Self.file, to: destination, options: DownloadOptions()) }
            let token = try #require(error?.resumeToken)
            let partial = directory.appendingPathComponent(token.partialFileName)
            var bytes = try Data(contentsOf: partial)
            bytes[200] ^= 0xFF
            try bytes.write(to: partial)

            let (second, transport) = client(FakeOrigin(.init(content: Self.content)))
            let result = try await second.download(Self.file, to: destination, resumingFrom: token)
            #expect(transport.requests.map { $0.headerFields[.range] } == [nil])
            #expect(result.restarts == 1)
            #expect(try Data(contentsOf: destination) == Data(Self.content))
        }
    }

    @Test("a token whose partial file is gone starts from zero")
    func missingPartialFile() async throws {
        try await withDirectory { directory in
            let destination = directory.appendingPathComponent("archive.bin")
            let (first, _) = client(FakeOrigin(.init(content: Self.content, cuts: [250])), retry: false)
            let error = await #expect(throws: APIError.self) { try await first.download(Self.file, to: destination, options: DownloadOptions()) }
            let token = try #require(error?.resumeToken)
            try FileManager.default.removeItem(at: directory.appendingPathComponent(token.partialFileName))
            let (second, transport) = client(FakeOrigin(.init(content: Self.content)))
            let result = try await second.download(Self.file, to: destination, resumingFrom: token)
            #expect(transport.requests.map { $0.headerFields[.range] } == [nil])
            #expect(result.restarts == 1)
            #expect(try Data(contentsOf: destination) == Data(Self.content))
        }
    }

    @Test("a token for another URL, or naming a path, is refused before anything is sent")
    func foreignToken() async throws {
        try await withDirectory { directory in
            let destination = directory.appendingPathComponent("archive.bin")
            let (first, _) = client(FakeOrigin(.init(content: Self.content, cuts: [250])), retry: false)
            let error = await #expect(throws: APIError.self) { try await first.download(Self.file, to: destination, options: DownloadOptions()) }
            let token = try #require(error?.resumeToken)
            let (second, transport) = client(FakeOrigin(.init(content: Self.content)))
            let refused = await #expect(throws: APIError.self) {
                try await second.download(Request<Data>(path: "/files/other.bin"), to: destination, resumingFrom: token)
            }
            #expect(refused?.kind == .encodingFailed)
            #expect((refused?.underlyingError as? DownloadError)?.reason == .tokenMismatch)
            // A tampered token naming a file elsewhere.
            var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(token)) as! [String: Any]
            json["partialFileName"] = "../../etc/.passwd.courier-download"
            let hostile = try JSONDecoder().decode(DownloadResumeToken.self, from: JSONSerialization.data(withJSONObject: json))
            let refusedPath = await #expect(throws: APIError.self) { try await second.download(Self.file, to: destination, resumingFrom: hostile) }
            #expect((refusedPath?.underlyingError as? DownloadError)?.reason == .tokenMismatch)
            #expect(transport.requests.isEmpty)
        }
    }

    @Test("a token for a file already whole: the server's 416 for its length completes the download without a byte")
    func alreadyWhole() async throws {
        try await withDirectory { directory in
            let destination = directory.appendingPathComponent("archive.bin")
            // Cut at the very end: the body is whole but the transfer failed.
            let origin = FakeOrigin(.init(content: Self.content, cuts: [1000]))
            origin.state.withLock { $0.chunk = 1000 }
            let (first, _) = client(origin, retry: false)
            let error = await #expect(throws: APIError.self) { try await first.download(Self.file, to: destination, options: DownloadOptions()) }
            let token = try #require(error?.resumeToken)
            #expect(token.bytesOnDisk == 1000)
            let (second, transport) = client(FakeOrigin(.init(content: Self.content)))
            let result = try await second.download(Self.file, to: destination, resumingFrom: token)
            #expect(transport.requests.map { $0.headerFields[.range] } == ["bytes=1000-"])
            #expect(result.bytesReceived == 0)
            #expect(try Data(contentsOf: destination) == Data(Self.content))
        }
    }

    @Test("checkpoints hand out tokens as the bytes reach the disk, each matching the file")
    func checkpoints() async throws {
        try await withDirectory { directory in
            let tokens = LockedBox<[DownloadResumeToken]>([])
            let (client, _) = client(FakeOrigin(.init(content: Self.content)))
            let options = DownloadOptions(checkpointInterval: 300) { token in tokens.withLock { $0.append(token) } }
            try await client.download(Self.file, to: directory.appendingPathComponent("f"), options: options)
            let taken = tokens.withLock { $0 }
            #expect(taken.map(\.bytesOnDisk) == [300, 600, 900])
            for token in taken {
                let block = Self.content[(Int(token.bytesOnDisk) - token.tailLength)..<Int(token.bytesOnDisk)]
                #expect(token.tailDigest == sha256Hex(Array(block)))
            }
        }
    }

    @Test("cancelling the task pauses the download: the partial file stays, the last checkpoint is exact, and it resumes")
    func pauseAndResume() async throws {
        try await withDirectory { directory in
            let destination = directory.appendingPathComponent("archive.bin")
            let origin = FakeOrigin(.init(content: Self.content, cuts: [400], hangsAfterCut: true))
            let (client, _) = client(origin)
            let tokens = LockedBox<[DownloadResumeToken]>([])
            let started = AsyncStream<Void>.makeStream()
            let options = DownloadOptions { token in tokens.withLock { $0.append(token) } }
            let task = Task {
                try await client.download(Self.file, to: destination, options: options) { progress in
                    if progress.completedBytes == 400 { started.continuation.yield() }
                }
            }
            for await _ in started.stream { break }
            task.cancel()
            let outcome = await task.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            let token = try #require(tokens.withLock { $0.last })
            #expect(token.bytesOnDisk == 400)
            #expect(partialFiles(in: directory) == [token.partialFileName])

            let result = try await client.download(Self.file, to: destination, resumingFrom: token)
            #expect(result.bytesReceived == 600)
            #expect(try Data(contentsOf: destination) == Data(Self.content))
        }
    }
}
