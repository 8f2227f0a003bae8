import Courier
import CourierTestServer
import CourierTesting
import Foundation
import NIOCore
import Testing

/// Resumable uploads (draft-ietf-httpbis-resumable-upload-15) to ``UploadServer`` over both
/// transports: cut at seeded offsets and resumed from the server's offset; refused, restarted
/// or plain when the server says so or lies.
@Suite("Resumable uploads over both transports")
struct ResumableUploadTests {
    struct Stored: Decodable, Sendable {
        var id: String
        var size: Int
        var sha256: String
        var method: String
        var path: String
        var contentType: String
    }

    static let create = Request<Stored>(method: .post, path: "/files")

    @Test("10 cuts at seeded offsets: the stored object byte-identical (SHA-256), each byte sent once (± one chunk a cut)",
          arguments: TransportKind.allCases)
    func cuts(_ kind: TransportKind) async throws {
        let file = try await UploadFixture.file(size: UploadFixture.size)
        let cuts = 10
        try await withUploadServer(.init(size: UploadFixture.size, cuts: cuts)) { server in
            let client = UploadFixture.client(kind, server)
            let watch = RangeResume.ProgressWatch()
            let stored = try await client.upload(Self.create, fromFile: file.url, contentType: "video/mp4",
                                                 options: ResumableUploadOptions(requirement: .required), progress: watch.handler)
            let stats = server.stats
            print("upload resume figures [\(kind.rawValue)]: file \(UploadFixture.size) B, cuts made \(stats.cutsMade) (\(stats.resets) resets) at \(server.cutOffsets), appends \(stats.patches), offset requests \(stats.heads), body bytes the server read \(stats.bodyBytesReceived) (+\(stats.bodyBytesReceived - UploadFixture.size)), requests \(stats.requests)")
            #expect(stored.sha256 == file.sha256Hex)
            #expect(stored.size == UploadFixture.size)
            #expect(stored.method == "POST" && stored.path == "/files" && stored.contentType == "video/mp4")
            #expect(stats.cutsMade == cuts)
            #expect(stats.options == 1 && stats.creations == 1)
            // After each cut the client learns the server's offset — from a HEAD, or from the
            // 409 its transport's own retry of the append on a fresh connection got (libcurl
            // re-sends a request whose reused connection died) — and appends exactly from it.
            #expect(stats.heads + stats.statuses.filter { $0 == 409 }.count >= cuts)
            #expect(Set(stats.patchOffsets).isSuperset(of: server.cutOffsets), "\(stats.patchOffsets) for cuts at \(server.cutOffsets)")
            // What the server read and did not keep: at most one read per cut, plus the
            // appends refused with a 409 (each at most one append's size: 1 MiB over URLSession).
            let refused = stats.statuses.filter { $0 == 409 }.count
            #expect(stats.bodyBytesReceived <= UploadFixture.size + cuts * UploadFixture.chunk + refused * (1 << 20))
            #expect(watch.last?.completedBytes == Int64(UploadFixture.size))
            #expect(watch.neverWentBack)
        }
    }

    @Test("a 500 at each cut resumes the same way (the draft: a 5xx asks the offset)", arguments: TransportKind.allCases)
    func serverErrors(_ kind: TransportKind) async throws {
        let file = try await UploadFixture.file(size: UploadFixture.smallSize)
        try await withUploadServer(.init(size: UploadFixture.smallSize, cuts: 3, failsAtCutsWith500: true)) { server in
            let client = UploadFixture.client(kind, server)
            let stored = try await client.upload(Self.create, fromFile: file.url, options: ResumableUploadOptions(requirement: .required))
            #expect(stored.sha256 == file.sha256Hex)
            #expect(server.stats.cutsMade == 3)
            #expect(Set(server.stats.patchOffsets).isSuperset(of: server.cutOffsets), "\(server.stats.patchOffsets) for cuts at \(server.cutOffsets)")
            #expect(server.stats.heads >= 3, "each 500 is followed by a HEAD")
        }
    }

    @Test("appends are cut to the server's max-append-size; a file over its max-size is refused unsent",
          arguments: TransportKind.allCases)
    func limits(_ kind: TransportKind) async throws {
        let file = try await UploadFixture.file(size: UploadFixture.smallSize)
        try await withUploadServer(.init(limit: "max-append-size=1000000, max-age=3600")) { server in
            let client = UploadFixture.client(kind, server)
            let stored = try await client.upload(Self.create, fromFile: file.url, options: ResumableUploadOptions())
            #expect(stored.sha256 == file.sha256Hex)
            #expect(server.stats.patches == (UploadFixture.smallSize + 999_999) / 1_000_000)
            #expect(server.stats.patchOffsets == stride(from: 0, to: UploadFixture.smallSize, by: 1_000_000).map { $0 })
        }
        try await withUploadServer(.init(limit: "max-size=1000")) { server in
            let client = UploadFixture.client(kind, server)
            let error = try await #require(throws: APIError.self) {
                try await client.upload(Self.create, fromFile: file.url, options: ResumableUploadOptions())
            }
            #expect((error.underlyingError as? UploadError)?.reason == .outsideLimits)
            #expect(server.stats.creations == 0 && server.stats.bodyBytesReceived == 0)
        }
    }

    @Test("a server that does not offer them: a plain upload, or — when required — an error before any byte",
          arguments: TransportKind.allCases)
    func notOffered(_ kind: TransportKind) async throws {
        let file = try await UploadFixture.file(size: UploadFixture.smallSize)
        try await withUploadServer(.init(offersResumption: false)) { server in
            let client = UploadFixture.client(kind, server)
            let stored = try await client.upload(Self.create, fromFile: file.url, contentType: "image/png", options: ResumableUploadOptions())
            #expect(stored.sha256 == file.sha256Hex && stored.id == "plain" && stored.contentType == "image/png")
            #expect(server.stats.patches == 0 && server.stats.creations == 1)

            let error = try await #require(throws: APIError.self) {
                try await client.upload(Self.create, fromFile: file.url, options: ResumableUploadOptions(requirement: .required))
            }
            #expect((error.underlyingError as? UploadError)?.reason == .resumptionNotOffered)
            #expect(server.stats.creations == 1, "nothing more was sent")
        }
    }

    @Test("a Location on another origin is refused: the file is never sent there", arguments: TransportKind.allCases)
    func crossOriginLocation(_ kind: TransportKind) async throws {
        let file = try await UploadFixture.file(size: UploadFixture.smallSize)
        try await withUploadServer(.init(locationOverride: "http://127.0.0.2:9/uploads/{id}")) { server in
            let client = UploadFixture.client(kind, server)
            let error = try await #require(throws: APIError.self) {
                try await client.upload(Self.create, fromFile: file.url, options: ResumableUploadOptions())
            }
            #expect((error.underlyingError as? UploadError)?.reason == .invalidUploadResource)
            #expect(server.stats.patches == 0 && server.stats.bodyBytesReceived == 0)
        }
    }

    @Test("an offset that goes back after a cut fails the upload instead of sending a mixed object",
          arguments: TransportKind.allCases)
    func offsetGoesBack(_ kind: TransportKind) async throws {
        let file = try await UploadFixture.file(size: UploadFixture.smallSize)
        // The first append is acknowledged at 1,000,000 (max-append-size); the cut (a 500) comes
        // at 1,107,766, and the HEAD that follows claims 1 MiB less than the server holds.
        try await withUploadServer(.init(size: UploadFixture.smallSize, cuts: 1, cutSeed: 3, limit: "max-append-size=1000000",
                                         headOffsetShift: -(1 << 20), failsAtCutsWith500: true)) { server in
            let client = UploadFixture.client(kind, server)
            var options = ResumableUploadOptions()
            options.deletesOnFailure = true
            let error = try await #require(throws: APIError.self) {
                try await client.upload(Self.create, fromFile: file.url, options: options)
            }
            #expect((error.underlyingError as? UploadError)?.reason == .invalidOffset, "\(error)")
            #expect(server.stats.completed.isEmpty)
            #expect(server.stats.deletes == 1, "the upload resource is given up")
        }
    }

    @Test("an upload the server lost starts again from zero, once", arguments: TransportKind.allCases)
    func serverLosesUpload(_ kind: TransportKind) async throws {
        let file = try await UploadFixture.file(size: UploadFixture.smallSize)
        try await withUploadServer(.init(size: UploadFixture.smallSize, cuts: 1, forgetsAfterCut: 1)) { server in
            let client = UploadFixture.client(kind, server)
            let stored = try await client.upload(Self.create, fromFile: file.url, options: ResumableUploadOptions())
            #expect(stored.sha256 == file.sha256Hex)
            #expect(server.stats.creations == 2)
        }
    }

    @Test("a cancelled upload keeps its resource and a token; the token resumes it, or cancels it",
          arguments: TransportKind.allCases)
    func pauseAndResume(_ kind: TransportKind) async throws {
        let file = try await UploadFixture.file(size: UploadFixture.size)
        try await withUploadServer(.init(limit: "max-append-size=4000000")) { server in
            let client = UploadFixture.client(kind, server)
            let tokens = Locked<[UploadResumeToken]>([])
            let running = Locked<Task<Stored, any Error>?>(nil)
            var options = ResumableUploadOptions(requirement: .required)
            // Paused from the checkpoint itself once 12 MB are acknowledged: the cancellation
            // lands before the next append, however loaded the machine.
            options.onCheckpoint = { token in
                tokens.withLock { $0.append(token) }
                if token.acknowledgedBytes >= 12_000_000 { running.withLock { $0?.cancel() } }
            }
            let task = Task { try await client.upload(Self.create, fromFile: file.url, options: options) }
            running.withLock { $0 = task }
            if tokens.withLock({ $0.last?.acknowledgedBytes ?? 0 }) >= 12_000_000 { task.cancel() }
            _ = await #expect(throws: CancellationError.self) { try await task.value }
            let token = try #require(tokens.withLock { $0.last })
            #expect(token.acknowledgedBytes >= 12_000_000 && token.totalBytes == Int64(UploadFixture.size))
            let decoded = try JSONDecoder().decode(UploadResumeToken.self, from: JSONEncoder().encode(token))
            #expect(decoded == token)

            // Another file, or another URL: refused before anything is sent.
            let other = try await UploadFixture.file(size: UploadFixture.smallSize)
            let mismatch = try await #require(throws: APIError.self) {
                try await client.upload(Self.create, fromFile: other.url, resumingFrom: decoded)
            }
            #expect((mismatch.underlyingError as? UploadError)?.reason == .tokenMismatch)

            let before = server.stats
            let stored = try await client.upload(Self.create, fromFile: file.url, resumingFrom: decoded)
            #expect(stored.sha256 == file.sha256Hex)
            let after = server.stats
            #expect(after.creations == before.creations, "the same upload resource")
            #expect(after.heads == before.heads + 1)
            #expect(after.bodyBytesReceived - before.bodyBytesReceived <= UploadFixture.size - Int(token.acknowledgedBytes) + 4_000_000)

            // A completed upload's token: cancelling it is harmless.
            try await client.cancelUpload(decoded)
        }
    }

    @Test("cancelUpload deletes the upload resource", arguments: TransportKind.allCases)
    func cancelUpload(_ kind: TransportKind) async throws {
        let file = try await UploadFixture.file(size: UploadFixture.smallSize)
        try await withUploadServer(.init(size: UploadFixture.smallSize, cuts: 1, failsAtCutsWith500: true)) { server in
            let client = UploadFixture.client(kind, server)
            let error = try await #require(throws: APIError.self) {
                try await client.upload(Self.create, fromFile: file.url, options: ResumableUploadOptions(resumption: .never, deletesOnFailure: false))
            }
            let token = try #require(error.uploadResumeToken, "\(error)")
            #expect(String(describing: error).contains("kept on the server"))
            try await client.cancelUpload(token)
            #expect(server.stats.deletes == 1)
            let gone = try await #require(throws: APIError.self) {
                try await client.upload(Self.create, fromFile: file.url, resumingFrom: token, options: ResumableUploadOptions(maxRestarts: 0))
            }
            #expect((gone.underlyingError as? UploadError)?.reason == .tooManyRestarts)
        }
    }
}

/// Starts an ``UploadServer`` for `body` and stops it afterwards.
func withUploadServer(_ behavior: UploadServer.Behavior, _ body: (UploadServer) async throws -> Void) async throws {
    let server = try await UploadServer.start(behavior)
    do { try await body(server) } catch { await server.stop(); throw error }
    await server.stop()
}

enum UploadFixture {
    static let size = 64 << 20
    static let smallSize = 5_000_000
    /// The most a cut can cost: the bytes of one read the server took but did not keep.
    static let chunk = 64 * 1024

    struct File: Sendable {
        var url: URL
        var sha256Hex: String
    }

    /// A file of `size` seeded bytes (made once per size in this process) and its SHA-256,
    /// written and hashed on a thread of its own, never on the cooperative pool.
    static func file(size: Int) async throws -> File {
        if let made = made.withLock({ $0[size] }) { return made }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-upload-\(size)-\(UUID().uuidString).bin")
        let file = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<File, any Error>) in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let content = RangeContent.bytes(seed: UInt64(size), version: 1, size: size)
                    try Data(content.readableBytesView).write(to: url)
                    return File(url: url, sha256Hex: RangeContent.sha256Hex(seed: UInt64(size), version: 1, size: size))
                })
            }
        }
        made.withLock { $0[size] = file }
        return file
    }

    private static let made = Locked<[Int: File]>([:])

    /// A client over `kind` that resumes by a RetryMiddleware with short backoffs.
    static func client(_ kind: TransportKind, _ server: UploadServer) -> APIClient {
        let configuration = APIConfiguration(baseURL: server.baseURL, timeout: .seconds(120))
        let policy = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(1), maxDelay: .milliseconds(10), jitter: .none)
        return APIClient(configuration: configuration, transport: kind.makeTransport(),
                         middleware: [RetryMiddleware(policy: policy, budget: RetryBudget(minRetriesPerSecond: 1000))])
    }
}
