@testable import Courier
import Foundation
import OpenAPIRuntime
import Testing

/// The one channel from the bodies Courier builds to its transports.
@Suite("Upload descriptions")
struct UploadDescriptionTests {
    @Test("a file body is described by its file; a body built from it keeps the file only through reportingProgress")
    func identity() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-desc-\(UUID().uuidString)")
        try Data("hello".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let body = SegmentSequence(segments: [.file(url)], chunkSize: 4).makeBody()
        guard case .file(let described)? = body.uploadDescription?.source else {
            Issue.record("no file source")
            return
        }
        #expect(described == url)
        let wrapped = body.reportingProgress { _ in }
        #expect(wrapped.uploadDescription?.readsFiles == true)
        #expect(wrapped.uploadDescription?.progress != nil)
        // A body a middleware builds anew is just a stream.
        #expect(HTTPBody("hello").uploadDescription == nil)
    }

    @Test("bytes the client holds are described while their body lives, read again in upload-sized chunks, and not kept after it")
    func heldBytes() async throws {
        weak var held: HeldBytes?
        do {
            let body = HTTPBody.registered(Data("hello".utf8))
            held = body.uploadDescription?.heldBytes
            #expect(held?.data == Data("hello".utf8))
            #expect(body.length == .known(5))
            // Read twice: a retry or a redirect reads the body again.
            #expect(try await Data(collecting: body, upTo: 100) == Data("hello".utf8))
            #expect(try await Data(collecting: body, upTo: 100) == Data("hello".utf8))
            // A body with progress keeps the bytes; the wrapper is still the same bytes.
            let wrapped = body.reportingProgress { _ in }
            #expect(wrapped.uploadDescription?.heldBytes === held)
        }
        // The registry's entry outlives the body until it is pruned; the bytes do not.
        #expect(held == nil)
        #expect(try await Data(collecting: HTTPBody.registered(Data()), upTo: 100).isEmpty)
        // 150 KiB: three chunks of at most 64 KiB, the same bytes in the same order.
        let large = Data((0..<150 * 1024).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        var chunks: [Int] = []
        var collected = Data()
        for try await chunk in HTTPBody.registered(large) {
            chunks.append(chunk.count)
            collected.append(contentsOf: chunk)
        }
        #expect(chunks == [65_536, 65_536, 22_528])
        #expect(collected == large)
        // A sliced `Data` (its indices do not start at 0) too.
        let slice = large[1000..<2000]
        #expect(try await Data(collecting: HTTPBody.registered(slice), upTo: 10_000) == Data(slice))
    }

    @Test("once a transport reports what it sent, bytes handed over are not reported")
    func transportWins() {
        let reports = Locked<[Int64]>([])
        let reporter = UploadProgressReporter(total: 10) { p in reports.withLock { $0.append(p.completedBytes) } }
        reporter.handedOver(4)
        reporter.transportWillSend()
        reporter.handedOver(6)
        reporter.sent(3)
        reporter.sent(3)     // not beyond the last: dropped
        reporter.sent(10)
        #expect(reports.withLock { $0 } == [4, 3, 10])
    }
}
