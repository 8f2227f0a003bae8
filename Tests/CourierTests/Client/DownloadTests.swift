import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("download(_:to:progress:)")
struct DownloadTests {
    @Test("writes the body to the file and reports progress with the total")
    func writesAndReportsProgress() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (client, _) = scriptedClient { _, _ in
            (ok([.contentLength: "9"]), chunkedBody(["abc", "def", "ghi"]))
        }
        let reports = LockedBox<[TransferProgress]>([])
        let file = dir.appendingPathComponent("out.bin")
        let result = try await client.download(Request<Data>(path: "/file"), to: file) { p in reports.withLock { $0.append(p) } }
        #expect(try String(contentsOf: file, encoding: .utf8) == "abcdefghi")
        #expect(result.byteCount == 9)
        let progress = reports.withLock { $0 }
        #expect(progress.map(\.completedBytes) == [0, 3, 6, 9])
        #expect(progress.allSatisfy { $0.totalBytes == 9 })
        #expect(progress.last?.fractionCompleted == 1)
        #expect(directoryContents(dir) == ["out.bin"])
    }

    @Test("two downloads to one destination at once each write a partial file of their own; the last to finish is kept")
    func concurrentDownloadsToOneDestination() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (first, firstContinuation) = AsyncThrowingStream<ArraySlice<UInt8>, any Error>.makeStream()
        let (client, _) = scriptedClient { _, call in
            call == 1 ? (ok(), HTTPBody(first, length: .unknown, iterationBehavior: .single)) : (ok(), chunkedBody(["BBBBB"]))
        }
        let file = dir.appendingPathComponent("out.bin")
        firstContinuation.yield(ArraySlice("AAAAAAAAAA".utf8))
        let a = Task { try await client.download(Request<Data>(path: "/a"), to: file) }
        // Until the first download has written its chunk to its partial file.
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, !directoryContents(dir).contains(where: { name in
            ((try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(name).path)[.size]) as? NSNumber)?.intValue == 10
        }) {
            try await Task.sleep(for: .milliseconds(5))
        }
        let b = try await client.download(Request<Data>(path: "/b"), to: file)
        #expect(b.byteCount == 5)
        firstContinuation.finish()
        let resultA = try await a.value
        #expect(resultA.byteCount == 10)
        #expect(try String(contentsOf: file, encoding: .utf8) == "AAAAAAAAAA")
        #expect(directoryContents(dir) == ["out.bin"])
    }

    @Test("the total is unknown without Content-Length")
    func unknownTotal() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (client, _) = scriptedClient { _, _ in (ok(), chunkedBody(["ab", "c"])) }
        let reports = LockedBox<[TransferProgress]>([])
        try await client.download(Request<Data>(path: "/file"), to: dir.appendingPathComponent("f")) { p in reports.withLock { $0.append(p) } }
        #expect(reports.withLock { $0 }.allSatisfy { $0.totalBytes == nil && $0.fractionCompleted == nil })
    }

    @Test("a failure mid-body removes the partial file and leaves an existing destination alone")
    func failureRemovesPartialFile() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("out.bin")
        try Data("old".utf8).write(to: file)
        let (client, _) = scriptedClient { _, _ in
            (ok(), chunkedBody(["abc"], thenFail: TransportError(.connectionLost, "reset")))
        }
        await #expect {
            try await client.download(Request<Data>(path: "/file"), to: file)
        } throws: { error in
            if (error as? APIError)?.kind == .network { return true }
            return false
        }
        #expect(directoryContents(dir) == ["out.bin"])
        #expect(try String(contentsOf: file, encoding: .utf8) == "old")
    }

    @Test("an HTTP error status throws before a file is created")
    func httpError() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (client, stub) = makeClient()
        stub.on(.get, "/missing", .status(404, message: "gone"))
        await #expect {
            try await client.download(Request<Data>(path: "/missing"), to: dir.appendingPathComponent("x"))
        } throws: { ($0 as? APIError)?.statusCode == 404 }
        #expect(directoryContents(dir).isEmpty)
    }

    @Test("cancellation removes the partial file")
    func cancellation() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let started = AsyncStream<Void>.makeStream()
        let (client, _) = scriptedClient { _, _ in (ok(), chunkedBody(["abc"], thenHang: true)) }
        let file = dir.appendingPathComponent("out.bin")
        let task = Task {
            try await client.download(Request<Data>(path: "/endless"), to: file) { p in
                if p.completedBytes > 0 { started.continuation.yield() }
            }
        }
        for await _ in started.stream { break }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(directoryContents(dir).isEmpty)
    }

    @Test("the request's own size limit applies; the client-wide one does not")
    func sizeLimits() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (client, _) = scriptedClient({ _, _ in (ok(), chunkedBody(["0123456789", "0123456789"])) }) { $0.maxResponseSize = 5 }
        let big = try await client.download(Request<Data>(path: "/f"), to: dir.appendingPathComponent("big"))
        #expect(big.byteCount == 20)

        let limited = Request<Data>(path: "/f", options: RequestOptions(maxResponseSize: 15))
        await #expect {
            try await client.download(limited, to: dir.appendingPathComponent("limited"))
        } throws: { error in
            if let apiError = error as? APIError, apiError.kind == .resourceTooLarge, let limit = apiError.sizeLimit { return limit == 15 }
            return false
        }
        #expect(directoryContents(dir) == ["big"])
    }

    @Test("a destination name up to the file system's 255 bytes is downloaded to (the partial file's name is cut, not the download)",
          arguments: [229, 240, 255])
    func longDestinationName(_ length: Int) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (client, _) = scriptedClient { _, _ in (ok(), chunkedBody(["abc"])) }
        // ASCII, and a name of one ASCII letter and 3-byte characters, whose cut to the 228 bytes
        // left for it would fall inside a character if made by bytes.
        for name in [String(repeating: "a", count: length), "a" + String(repeating: "文", count: (length - 1) / 3)] {
            let file = dir.appendingPathComponent(name)
            let result = try await client.download(Request<Data>(path: "/file"), to: file)
            #expect(result.byteCount == 3)
            #expect(try String(contentsOf: file, encoding: .utf8) == "abc")
        }
        #expect(directoryContents(dir).count == 2, "no partial file left: \(directoryContents(dir))")
    }

    @Test("a destination in a directory that does not exist fails at once with the file system's reason, and sends nothing")
    func missingDirectory() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (client, transport) = scriptedClient { _, _ in (ok(), chunkedBody(["abc"])) }
        let file = dir.appendingPathComponent("missing").appendingPathComponent("out.bin")
        let error = await #expect(throws: APIError.self) { try await client.download(Request<Data>(path: "/file"), to: file) }
        #expect(error?.kind == .unknown)
        #expect("\(error.map { String(describing: $0) } ?? "")".contains("No such file or directory"), "\(String(describing: error))")
        #expect(transport.requests.isEmpty)
    }
}
