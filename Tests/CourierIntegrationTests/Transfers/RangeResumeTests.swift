import Courier
import CourierTestServer
import CourierTesting
import Foundation
import Testing

/// Downloads of a 64 MiB file from ``RangeServer``, cut at seeded offsets, over both
/// transports: resumed with `Range`/`If-Range` by the RetryMiddleware's policy, restarted from
/// zero when the representation changed or the server ignores ranges, refused when it lies.
// Serialized: each test makes or hashes 64 MiB synchronously (the range server's content, the
// downloaded file) on a thread of the cooperative pool; run side by side on two cores they held
// both threads, and a loaded fresh-clone CI run saw an unrelated test's 15 s token limit pass.
@Suite("Resumable downloads over both transports", .serialized)
struct RangeResumeTests {
    @Test("12 cuts at seeded offsets: 12 resumptions, the file byte-identical (SHA-256), each byte received once (± one chunk a cut)",
          arguments: TransportKind.allCases)
    func cuts(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cuts = 12
        try await withRangeServer(.init(size: RangeResume.size, seed: RangeResume.seed, cuts: cuts)) { server in
            let client = RangeResume.client(kind, server)
            let destination = directory.appendingPathComponent("file.bin")
            let watch = RangeResume.ProgressWatch()
            let result = try await client.download(RangeResume.file, to: destination, progress: watch.handler)
            let stats = server.stats
            print("resume figures [\(kind.rawValue)]: file \(RangeResume.size) B, cuts made \(stats.cutsMade) (\(stats.resets) resets) at \(server.cutOffsets), resumptions \(result.resumptions), restarts \(result.restarts), bytes received by the client \(result.bytesReceived) (+\(result.bytesReceived - Int64(RangeResume.size))), body bytes the server's socket took \(stats.bodyBytesSent) (+\(stats.bodyBytesSent - RangeResume.size)), requests \(stats.requests)")
            #expect(try RangeContent.sha256Hex(ofFile: destination) == server.currentSHA256Hex)
            #expect(stats.cutsMade == cuts)
            #expect(result.resumptions == cuts)
            #expect(result.restarts == 0)
            #expect(stats.requests == cuts + 1)
            // Each resumption asks from the bytes on disk: at most the cut's offset (a reset
            // loses what was in flight), past the one before.
            let offsets = stats.ranges.dropFirst().map { $0.flatMap { Int($0.dropFirst(6).dropLast()) } ?? -1 }
            #expect(offsets.count == cuts)
            #expect(zip(offsets, server.cutOffsets).allSatisfy { $0 <= $1 && $0 > 0 }, "\(offsets) for cuts at \(server.cutOffsets)")
            #expect(offsets == offsets.sorted())
            #expect(stats.ifRanges.dropFirst().allSatisfy { $0 == "\"\(RangeResume.seed)-v1\"" })
            #expect(result.bytesReceived <= Int64(RangeResume.size + cuts * RangeResume.chunk))
            #expect(watch.neverWentBack, "progress went back")
            #expect(watch.last == TransferProgress(completedBytes: Int64(RangeResume.size), totalBytes: Int64(RangeResume.size)))
            #expect(directoryContents(directory) == ["file.bin"])
        }
    }
    @Test("12 cuts that close the connection (FIN): what the server's socket took is the file and at most one chunk a cut",
          arguments: TransportKind.allCases)
    func closes(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cuts = 12
        try await withRangeServer(.init(size: RangeResume.size, seed: RangeResume.seed, cuts: cuts, cutSeed: 51, cutStyle: .close)) { server in
            let client = RangeResume.client(kind, server)
            let destination = directory.appendingPathComponent("file.bin")
            let result = try await client.download(RangeResume.file, to: destination)
            let stats = server.stats
            print("resume figures, closes only [\(kind.rawValue)]: file \(RangeResume.size) B, cuts \(stats.cutsMade), resumptions \(result.resumptions), client received \(result.bytesReceived) (+\(result.bytesReceived - Int64(RangeResume.size))), server socket took \(stats.bodyBytesSent) (+\(stats.bodyBytesSent - RangeResume.size))")
            #expect(try RangeContent.sha256Hex(ofFile: destination) == server.currentSHA256Hex)
            #expect(result.resumptions == cuts)
            #expect(result.bytesReceived <= Int64(RangeResume.size + cuts * RangeResume.chunk))
            if kind == .urlSession {
                // Every byte the server's socket took arrived and was kept. AsyncHTTPClient
                // drops the few chunks it had read but not handed over when the connection
                // closes (≈ 200 KiB a cut here): those are asked for again.
                #expect(stats.bodyBytesSent <= RangeResume.size + cuts * RangeResume.chunk)
            }
        }
    }

    @Test("the resource changes mid-way: If-Range no longer matches, the server sends the new file whole, and the download restarts from zero — never a mixed file",
          arguments: TransportKind.allCases)
    func changesMidway(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withRangeServer(.init(size: RangeResume.size, seed: RangeResume.seed, cuts: 3, cutSeed: 52, changesAtCut: 2)) { server in
            let client = RangeResume.client(kind, server)
            let destination = directory.appendingPathComponent("file.bin")
            let result = try await client.download(RangeResume.file, to: destination)
            let stats = server.stats
            #expect(server.version == 2)
            #expect(try RangeContent.sha256Hex(ofFile: destination) == RangeContent.sha256Hex(seed: RangeResume.seed, version: 2, size: RangeResume.size))
            #expect(result.restarts == 1)
            #expect(stats.statuses.filter { $0 == 200 }.count == 2, "the first answer and the new file: \(stats.statuses)")
            #expect(stats.ifRanges.contains("\"\(RangeResume.seed)-v1\"") && stats.ifRanges.contains("\"\(RangeResume.seed)-v2\""))
        }
    }

    @Test("a server that ignores Range: each cut restarts cleanly from zero", arguments: TransportKind.allCases)
    func ignoresRanges(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withRangeServer(.init(size: RangeResume.size, seed: RangeResume.seed, cuts: 2, cutSeed: 53, ignoresRanges: true)) { server in
            let client = RangeResume.client(kind, server)
            let destination = directory.appendingPathComponent("file.bin")
            let result = try await client.download(RangeResume.file, to: destination)
            #expect(try RangeContent.sha256Hex(ofFile: destination) == server.currentSHA256Hex)
            #expect(result.resumptions == 2)
            #expect(result.restarts == 2)
            #expect(server.stats.statuses == [200, 200, 200])
        }
    }

    @Test("a Last-Modified validator (a day before Date) is sent in If-Range and resumes", arguments: TransportKind.allCases)
    func lastModified(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withRangeServer(.init(size: Self.small, seed: Self.smallSeed, cuts: 2, validator: .lastModified)) { server in
            let result = try await RangeResume.client(kind, server).download(RangeResume.file, to: directory.appendingPathComponent("f"))
            #expect(try RangeContent.sha256Hex(ofFile: directory.appendingPathComponent("f")) == server.currentSHA256Hex)
            #expect(result.resumptions == 2 && result.restarts == 0)
            #expect(server.stats.ifRanges.dropFirst().allSatisfy { $0 == "Mon, 01 Jan 2024 00:00:00 GMT" })
        }
    }

    @Test("a weak ETag is never sent in If-Range: each cut restarts from zero, without Range", arguments: TransportKind.allCases)
    func weakETag(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withRangeServer(.init(size: Self.small, seed: Self.smallSeed, cuts: 2, validator: .weakETag)) { server in
            let result = try await RangeResume.client(kind, server).download(RangeResume.file, to: directory.appendingPathComponent("f"))
            #expect(try RangeContent.sha256Hex(ofFile: directory.appendingPathComponent("f")) == server.currentSHA256Hex)
            #expect(result.restarts == 2)
            #expect(server.stats.ranges.allSatisfy { $0 == nil } && server.stats.ifRanges.allSatisfy { $0 == nil })
        }
    }

    @Test("a stalled transfer: the idle timeout fires and the download resumes from the bytes on disk", arguments: TransportKind.allCases)
    func stalls(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withRangeServer(.init(size: Self.small, seed: Self.smallSeed, cuts: 2, stallsAtCuts: true)) { server in
            // 4 s, not 1: on a loaded machine (a fresh-clone CI run, the suite in parallel) a
            // head waited past a 1 s limit at both cuts, so both were sent again as plain
            // retries and nothing was left to resume (0 resumptions, a 200 last).
            let client = RangeResume.client(kind, server) { $0.idleTimeout = .seconds(4) }
            let result = try await client.download(RangeResume.file, to: directory.appendingPathComponent("f"))
            let stats = server.stats
            #expect(try RangeContent.sha256Hex(ofFile: directory.appendingPathComponent("f")) == server.currentSHA256Hex)
            #expect(stats.cutsMade == 2)
            // The stalls were resumed with ranges. On a loaded machine a head may itself wait
            // past the idle limit while the server has already written up to its cut into the
            // socket's buffers: the RetryMiddleware then sends that request again, as any, and
            // the download counts one resumption less.
            #expect((1...2).contains(result.resumptions), "\(stats)")
            #expect(stats.ranges.last??.hasPrefix("bytes=") == true, "\(stats)")
            #expect(stats.statuses.last == 206, "\(stats)")
        }
    }

    // MARK: Digests (RFC 9530)

    /// On the small file: the core's SHA-256 hashes ≈ 220 MB/s in a release build but only
    /// ≈ 4 MB/s in the debug build tests run in.
    @Test("a Repr-Digest is checked on the whole file after resumptions", arguments: TransportKind.allCases)
    func digest(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withRangeServer(.init(size: Self.small, seed: Self.smallSeed, cuts: 3, digest: .correct)) { server in
            let result = try await RangeResume.client(kind, server).download(RangeResume.file, to: directory.appendingPathComponent("f"))
            #expect(result.digestVerified)
            #expect(result.resumptions == 3)
        }
    }

    @Test("a file that does not match the server's Repr-Digest fails clearly and is removed", arguments: TransportKind.allCases)
    func wrongDigest(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withRangeServer(.init(size: Self.small, seed: Self.smallSeed, cuts: 1, digest: .wrong)) { server in
            let client = RangeResume.client(kind, server)
            let error = await #expect(throws: APIError.self) {
                try await client.download(RangeResume.file, to: directory.appendingPathComponent("f"), options: DownloadOptions())
            }
            #expect(error?.kind == .invalidResponse)
            #expect((error?.underlyingError as? DownloadError)?.reason == .digestMismatch)
            #expect(error?.resumeToken == nil)
            #expect(directoryContents(directory).isEmpty)
        }
    }

    // MARK: Hostile servers

    @Test("a 206 whose Content-Range does not start where the file ends: an error, the partial file as the token says",
          arguments: TransportKind.allCases)
    func mismatchedContentRange(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withRangeServer(.init(size: Self.small, seed: Self.smallSeed, cuts: 1, cutStyle: .close, contentRangeShift: -4096)) { server in
            let client = RangeResume.client(kind, server)
            let error = await #expect(throws: APIError.self) {
                try await client.download(RangeResume.file, to: directory.appendingPathComponent("f"), options: DownloadOptions())
            }
            #expect(error?.kind == .invalidResponse)
            #expect(error?.statusCode == 206)
            #expect((error?.underlyingError as? DownloadError)?.reason == .contentRangeMismatch)
            let token = try #require(error?.resumeToken)
            // What reached the disk before the close (AsyncHTTPClient drops a few chunks it had
            // read when the connection closes; nothing past the cut in any case).
            #expect(token.bytesOnDisk > 0 && token.bytesOnDisk <= Int64(server.cutOffsets[0]))
            let partial = directory.appendingPathComponent(token.partialFileName)
            let size = try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber
            #expect(size?.int64Value == token.bytesOnDisk, "nothing of the lying answer was written")
            let content = RangeContent.bytes(seed: Self.smallSeed, version: 1, size: Self.small)
            #expect(try RangeResume.prefixMatches(partial, content, count: Int(token.bytesOnDisk)))
        }
    }

    @Test("a 206 to a request without Range: an error, nothing kept", arguments: TransportKind.allCases)
    func unrequestedPartialContent(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withRangeServer(.init(size: Self.small, seed: Self.smallSeed, partialForPlainRequests: true)) { server in
            let error = await #expect(throws: APIError.self) {
                try await RangeResume.client(kind, server).download(RangeResume.file, to: directory.appendingPathComponent("f"), options: DownloadOptions())
            }
            #expect((error?.underlyingError as? DownloadError)?.reason == .unrequestedPartialContent)
            #expect(directoryContents(directory).isEmpty)
        }
    }

    @Test("a Content-Range of a 9-quintillion-byte file: an error, no crash, the partial file kept as it was", arguments: TransportKind.allCases)
    func hugeContentRange(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withRangeServer(.init(size: Self.small, seed: Self.smallSeed, cuts: 1, cutStyle: .close, hugeContentRange: true)) { server in
            let error = await #expect(throws: APIError.self) {
                try await RangeResume.client(kind, server).download(RangeResume.file, to: directory.appendingPathComponent("f"), options: DownloadOptions())
            }
            #expect((error?.underlyingError as? DownloadError)?.reason == .invalidContentRange)
            #expect(error?.resumeToken.map { $0.bytesOnDisk > 0 && $0.bytesOnDisk <= Int64(server.cutOffsets[0]) } == true)
        }
    }

    @Test("a 206 whose body never ends: stopped at the end of its range, an error, not one byte more on disk", arguments: TransportKind.allCases)
    func endlessPartialContent(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withRangeServer(.init(size: Self.small, seed: Self.smallSeed, cuts: 1, cutStyle: .close, endlessPartial: true)) { server in
            let error = await #expect(throws: APIError.self) {
                try await RangeResume.client(kind, server).download(RangeResume.file, to: directory.appendingPathComponent("f"), options: DownloadOptions())
            }
            #expect((error?.underlyingError as? DownloadError)?.reason == .rangeOverrun)
            let token = try #require(error?.resumeToken)
            let partial = directory.appendingPathComponent(token.partialFileName)
            let size = try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber
            #expect(size?.intValue == Self.small)
            #expect(server.stats.bodyBytesSent < 1 << 30, "the transfer was stopped")
        }
    }

    // MARK: Bounds and tokens

    @Test("the retry budget bounds resumptions; the error's token resumes on another client, asking for the rest only",
          arguments: TransportKind.allCases)
    func budgetThenToken(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withRangeServer(.init(size: RangeResume.size, seed: RangeResume.seed, cuts: 10, cutSeed: 54, cutStyle: .close)) { server in
            // Three tokens, and a clock that never refills them.
            let budget = RetryBudget(retryRatio: 0, minRetriesPerSecond: 3, maxBalance: 1, clock: ManualClock())
            let destination = directory.appendingPathComponent("file.bin")
            let error = await #expect(throws: APIError.self) {
                try await RangeResume.client(kind, server, budget: budget).download(RangeResume.file, to: destination, options: DownloadOptions())
            }
            #expect(error?.kind == .network)
            let token = try #require(error?.resumeToken)
            #expect(server.stats.requests == 4, "three resumptions")
            #expect(token.bytesOnDisk > Int64(server.cutOffsets[2]) && token.bytesOnDisk <= Int64(server.cutOffsets[3]))
            let result = try await RangeResume.client(kind, server).download(RangeResume.file, to: destination, resumingFrom: token)
            #expect(server.stats.ranges[4] == "bytes=\(token.bytesOnDisk)-")
            #expect(result.resumptions == 6)
            #expect(result.bytesReceived == Int64(RangeResume.size) - token.bytesOnDisk)
            #expect(try RangeContent.sha256Hex(ofFile: destination) == server.currentSHA256Hex)
            #expect(directoryContents(directory) == ["file.bin"])
        }
    }

    /// A smaller file for the hostile cases (their point is the answer, not the size).
    static let small = 4 << 20
    static let smallSeed: UInt64 = 8
}


func directoryContents(_ url: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
}
