import Courier
import CourierTestServer
@testable import CourierURLSession
import Foundation
import Testing

/// The buffer behind a streamed URLSession response on Linux, where the transfer cannot be
/// paused: past its memory limit, unread bytes go to an unlinked temporary file.
@Suite("Spilling a lagging response body to disk")
struct SpillingChunkBufferTests {
    private func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-spill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func readAll(_ buffer: SpillingChunkBuffer) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let chunk = try await buffer.next() { bytes += chunk }
        return bytes
    }

    @Test("past the memory limit bytes go to the file, and come back in arrival order")
    func order() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let buffer = SpillingChunkBuffer(memoryLimit: 10, directory: dir)
        var sent: [UInt8] = []
        for index in 0..<20 {
            let chunk = [UInt8](repeating: UInt8(index), count: 4)
            sent += chunk
            buffer.append(Data(chunk))
        }
        buffer.finish(throwing: nil)
        #expect(buffer.spilledBytes == 72)            // two chunks fit in 10 bytes of memory
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)   // unlinked at once
        #expect(try await readAll(buffer) == sent)
    }

    @Test("once the reader has caught up with the file, memory is used again")
    func backToMemory() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let buffer = SpillingChunkBuffer(memoryLimit: 10, directory: dir)
        for byte: UInt8 in [1, 2, 3] { buffer.append(Data(repeating: byte, count: 4)) }
        #expect(buffer.spilledBytes == 4)
        var read: [UInt8] = []
        while read.count < 12, let chunk = try await buffer.next() { read += chunk }
        #expect(read == [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3])
        buffer.append(Data(repeating: 4, count: 4))
        #expect(buffer.spilledBytes == 4)
        buffer.finish(throwing: nil)
        #expect(try await readAll(buffer) == [4, 4, 4, 4])
    }

    @Test("an error ends the body after what was buffered")
    func error() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let buffer = SpillingChunkBuffer(memoryLimit: 4, directory: dir)
        buffer.append(Data([1, 2, 3, 4]))
        buffer.append(Data([5, 6]))
        buffer.finish(throwing: TransportError(.connectionLost, "cut"))
        #expect(try await buffer.next() == [1, 2, 3, 4])
        #expect(try await buffer.next() == [5, 6])
        await #expect(throws: TransportError.self) { try await buffer.next() }
    }

    @Test("a waiting reader gets the next chunk directly, and an empty chunk wakes it without data")
    func waitingReader() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let buffer = SpillingChunkBuffer(memoryLimit: 4, directory: dir)
        let first = Task { try await buffer.next() }
        try await Task.sleep(for: .milliseconds(50))
        buffer.append(Data())
        #expect(try await first.value == [])
        let second = Task { try await buffer.next() }
        try await Task.sleep(for: .milliseconds(50))
        buffer.append(Data([9]))
        #expect(try await second.value == [9])
        buffer.close()
        #expect(try await buffer.next() == nil)
        #expect(buffer.spilledBytes == 0)
    }

    @Test("a waiting reader whose task is cancelled gets CancellationError at once, and nothing is lost")
    func cancelledWait() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let buffer = SpillingChunkBuffer(memoryLimit: 4, directory: dir)
        let waiting = Task { try await buffer.next() }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        buffer.append(Data([7]))
        buffer.finish(throwing: nil)
        #expect(try await readAll(buffer) == [7])
    }

    @Test("a URLSession reader that stops for a while gets the whole body, and no file is left behind")
    func stalledReader() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestServer { (server: TestServer) async throws in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL),
                                   transport: URLSessionTransport(temporaryDirectory: dir))
            let size = 8 << 20
            let stream = try await client.bytes(for: Request<Data>(path: "/bytes/\(size)"))
            try await Task.sleep(for: .milliseconds(500))   // the transfer goes on meanwhile
            var count = 0
            for try await chunk in stream { count += chunk.count }
            #expect(count == size)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        }
    }

    @Test("a body that arrives in tiny chunks is kept in few allocations, not one per chunk")
    func tinyChunks() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let buffer = SpillingChunkBuffer(directory: dir)
        // `Transfer-Encoding: chunked` with 1-byte chunks: one delegate call per byte.
        for index in 0..<300_000 { buffer.append(Data([UInt8(truncatingIfNeeded: index)])) }
        #expect(buffer.memoryChunkCount <= 300_000 / SpillingChunkBuffer.coalescedChunkSize + 1)
        buffer.finish(throwing: nil)
        let bytes = try await readAll(buffer)
        #expect(bytes.count == 300_000)
        #expect(bytes.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset) })
    }

    @Test("a body past its size limit ends with LimitExceeded after the bytes within it, and append says stop")
    func sizeLimit() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let buffer = SpillingChunkBuffer(memoryLimit: 4, maxBytes: 10, directory: dir)
        #expect(buffer.append(Data([1, 2, 3, 4])))
        #expect(buffer.append(Data([5, 6, 7, 8])))     // spilled
        #expect(!buffer.append(Data([9, 10, 11])), "past 10 bytes: the transfer should stop")
        #expect(!buffer.append(Data([12])))
        var read: [UInt8] = []
        await #expect(throws: BodyLimitExceeded.self) { while let chunk = try await buffer.next() { read += chunk } }
        #expect(read == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "the bytes within the limit, then the error")
    }

    @Test("a reader waiting for the next chunk when the size limit is passed gets the bytes within it, then LimitExceeded — not a wait without end")
    func sizeLimitWithWaitingReader() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let buffer = SpillingChunkBuffer(memoryLimit: 4, maxBytes: 10, directory: dir)
        #expect(buffer.append(Data([1, 2, 3, 4, 5, 6])))
        #expect(try await buffer.next() == [1, 2, 3, 4, 5, 6])
        let reader = Task { try await buffer.next() }
        try await Task.sleep(for: .milliseconds(50))   // the reader waits
        #expect(!buffer.append(Data([7, 8, 9, 10, 11])))
        buffer.finish(throwing: nil)                    // the transfer's end comes after: ignored
        #expect(try await reader.value == [7, 8, 9, 10])
        await #expect(throws: BodyLimitExceeded.self) { _ = try await buffer.next() }
        let second = Task { try await buffer.next() }
        await #expect(throws: BodyLimitExceeded.self) { _ = try await second.value }
    }

    #if canImport(FoundationNetworking)   // Apple platforms pause the transfer instead: nothing spills
    @Test("a stream whose request caps its size stops the transfer at the cap when its reader lags: the disk does not take the rest")
    func cappedStreamStopsAtTheCap() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestServer { (server: TestServer) async throws in
            let transport = URLSessionTransport(temporaryDirectory: dir)
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: transport)
            var options = RequestOptions()
            options.maxResponseSize = 8 << 20
            // An endless body of unknown length: only the cap can stop it.
            let stream = try await client.bytes(for: Request<Data>(path: "/infinite", options: options))
            // Nothing is read: the transfer must stop once 8 MiB have arrived, not spill on.
            #expect(try await Transfers.eventually(within: .seconds(120)) { transport.inFlightTaskCount == 0 }, "the transfer went on")
            let error = await #expect(throws: APIError.self) { for try await _ in stream {} }
            #expect(error?.kind == .resourceTooLarge, "\(String(describing: error))")
        }
    }
    #endif

    @Test("a spill file that cannot be written ends the body with an error naming the directory, after what was in memory; append says so")
    func spillFailure() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("courier-missing-\(UUID().uuidString)")
        let buffer = SpillingChunkBuffer(memoryLimit: 4, directory: missing)
        #expect(buffer.append(Data([1, 2, 3, 4])))
        #expect(!buffer.append(Data([5, 6])), "the chunk that could not be kept")
        #expect(!buffer.append(Data([7])), "nor any after it")
        #expect(try await buffer.next() == [1, 2, 3, 4])
        let error = await #expect(throws: TransportError.self) { _ = try await buffer.next() }
        #expect(error?.message.contains(missing.path) == true, "\(String(describing: error))")
        #expect(error?.message.contains("No such file or directory") == true, "\(String(describing: error))")
        #expect(error?.kind == .localFile)
    }

    #if canImport(FoundationNetworking)   // Apple platforms pause the transfer instead: nothing spills
    @Test("a URLSession body that cannot be spilled fails with that reason and stops the transfer")
    func spillFailureOverURLSession() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("courier-missing-\(UUID().uuidString)")
        try await withTestServer { (server: TestServer) async throws in
            let transport = URLSessionTransport(temporaryDirectory: missing)
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: transport)
            // An endless body: a transfer that went on after the failure would never end.
            let stream = try await client.bytes(for: Request<Data>(path: "/infinite"))
            // Nothing is read: past 1 MiB unread the buffer must spill, which fails; the transfer
            // must then stop on its own.
            #expect(try await Transfers.eventually { transport.inFlightTaskCount == 0 }, "the transfer went on")
            let error = await #expect(throws: APIError.self) { for try await _ in stream {} }
            #expect("\(error.map { String(describing: $0) } ?? "")".contains(missing.path), "\(String(describing: error))")
            // A full or missing disk on this machine, not the network: no offline banner, no retry.
            #expect(error?.kind == .unknown, "\(String(describing: error))")
        }
    }
    #endif
}
