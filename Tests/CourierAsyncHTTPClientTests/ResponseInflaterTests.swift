import AsyncHTTPClient
import CCourierZlib
import Courier
import Foundation
@testable import CourierAsyncHTTPClient
@testable import CourierTestServer
import NIOCore
import Synchronization
import Testing

/// The AsyncHTTPClient transport inflates gzip and deflate itself, a bounded piece per chunk
/// read, and reads the network only when the last read is used up (a gzip bomb never sits
/// inflated in memory).
@Suite("ResponseInflater")
struct ResponseInflaterTests {
    /// 300 KiB of JSON-like text.
    static let content: [UInt8] = Array((0..<12_000).map { "{\"id\":\($0),\"n\":\"x\"}," }.joined().utf8.prefix(300 * 1024))

    /// `content` as zlib-wrapped deflate (RFC 1950): the stored blocks of `Gzip` between a zlib
    /// header and an Adler-32.
    static func zlibWrapped(_ input: [UInt8]) -> [UInt8] {
        let gzip = Gzip.compress(input)
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in input { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        let adler = (b << 16) | a
        return [0x78, 0x01] + gzip[10..<(gzip.count - 8)] + [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)]
    }

    /// Feeds `compressed` to an inflater in pieces of `slice` bytes, as network reads.
    static func inflate(_ compressed: [UInt8], slice: Int) throws -> (output: [UInt8], largestPiece: Int) {
        let inflater = try ResponseInflater()
        var output: [UInt8] = []
        var largest = 0
        var offset = 0
        var pending = ByteBuffer()
        while true {
            if let piece = try inflater.inflate(&pending) {
                largest = max(largest, piece.readableBytes)
                output += piece.readableBytesView
                continue
            }
            guard offset < compressed.count else { break }
            let end = min(compressed.count, offset + slice)
            pending.writeBytes(compressed[offset..<end])   // what the inflater left comes first
            offset = end
        }
        #expect(inflater.isFinished)
        #expect(!inflater.holdsMagicByte)
        return (output, largest)
    }

    @Test("gzip and deflate inflate to the original bytes, however the reads are cut", arguments: [1, 7, 4096, 1 << 20])
    func roundTrip(slice: Int) throws {
        for compressed in [Gzip.compress(Self.content), Self.zlibWrapped(Self.content)] {
            let (output, largest) = try Self.inflate(compressed, slice: slice)
            #expect(output == Self.content)
            #expect(largest <= ResponseInflater.outputLimit)
        }
    }

    /// `input` compressed by zlib at its best level (zlib format: Huffman codes and
    /// back-references, unlike `Gzip`'s stored blocks).
    static func deflated(_ input: [UInt8]) throws -> [UInt8] {
        var length = compressBound(uLong(input.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = output.withUnsafeMutableBufferPointer { target in
            input.withUnsafeBufferPointer { compress2(target.baseAddress, &length, $0.baseAddress, uLong(input.count), Z_BEST_COMPRESSION) }
        }
        try #require(status == Z_OK)
        return Array(output.prefix(Int(length)))
    }

    @Test("zlib's own deflate output (Huffman codes, back-references) decodes byte for byte, 4 × 64 KiB exactly, however the reads are cut",
          arguments: [1, 13, 65_536])
    func realDeflate(slice: Int) throws {
        var text = Array(Self.content.prefix(4 * ResponseInflater.outputLimit))
        for index in stride(from: 0, to: text.count, by: 97) { text[index] = UInt8(truncatingIfNeeded: index &* 31) }
        let (output, largest) = try Self.inflate(try Self.deflated(text), slice: slice)
        #expect(output == text)
        #expect(largest <= ResponseInflater.outputLimit)
    }

    @Test("gzip members one after the other decode to their contents in order (RFC 1952 §2.2), however the reads are cut",
          arguments: [1, 37, 1000])
    func multipleMembers(slice: Int) throws {
        let first = Array("first member, ".utf8), second = Array(Self.content.prefix(70_000))
        // The first member is 37 bytes: with 37-byte reads the second member starts a read; with
        // 1-byte reads its `1F` and `8B` arrive apart.
        let (output, _) = try Self.inflate(Gzip.compress(first) + Gzip.compress(second), slice: slice)
        #expect(output == first + second)
    }

    @Test("a member boundary split between reads: the next member decodes, a lone 1F at the end is an error, nothing is kept whole")
    func memberBoundaryAcrossReads() async throws {
        let first = Gzip.compress(Array("one".utf8)), second = Gzip.compress(Array("two".utf8))
        let chunks = [ByteBuffer(bytes: first + [0x1F]), ByteBuffer(bytes: second.dropFirst())]
        var iterator = ResponseBodySequence(body: .stream(CountingChunks(chunks: chunks, pulled: PullCounter())), deadline: .now + .seconds(60),
                                            readTimeout: .seconds(30), inflating: "gzip").makeAsyncIterator()
        var output: [UInt8] = []
        while let piece = try await iterator.nextBuffer() { output += piece.readableBytesView }
        #expect(output == Array("onetwo".utf8))

        let lone = [ByteBuffer(bytes: first + [0x1F])]
        var loneIterator = ResponseBodySequence(body: .stream(CountingChunks(chunks: lone, pulled: PullCounter())), deadline: .now + .seconds(60),
                                                readTimeout: .seconds(30), inflating: "gzip").makeAsyncIterator()
        await #expect {
            while try await loneIterator.nextBuffer() != nil {}
        } throws: { error in
            (error as? TransportError)?.description.contains("after the end") == true
        }
    }

    @Test("reads that each end one byte into the next gzip member never pile up (each decodes to nothing)")
    func emptyMembersDoNotPileUp() async throws {
        // An empty member padded with 2,000 empty stored blocks (~10 KB that inflate to nothing).
        let member: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
            + Array([[UInt8]](repeating: [0x00, 0x00, 0x00, 0xFF, 0xFF], count: 2_000).joined())
            + [0x01, 0x00, 0x00, 0xFF, 0xFF] + [0, 0, 0, 0, 0, 0, 0, 0]   // CRC-32 and size of nothing
        var chunks = [ByteBuffer(bytes: member + [0x1F])]
        for _ in 0..<100 { chunks.append(ByteBuffer(bytes: member.dropFirst() + [0x1F])) }
        chunks.append(ByteBuffer(bytes: member.dropFirst()))
        var iterator = ResponseBodySequence(body: .stream(CountingChunks(chunks: chunks, pulled: PullCounter())), deadline: .now + .seconds(60),
                                            readTimeout: .seconds(30), inflating: "gzip").makeAsyncIterator()
        #expect(try await iterator.nextBuffer() == nil)
        // Kept reads would have grown the buffer to ~1 MB.
        #expect((iterator.inflation?.compressed.capacity ?? 0) < 64 * 1024)
    }

    /// Everything `chunks` inflate to through the body sequence, or the error.
    static func inflateBody(_ chunks: [[UInt8]], coding: String = "gzip") async throws -> [UInt8] {
        let reads = CountingChunks(chunks: chunks.map { ByteBuffer(bytes: $0) }, pulled: PullCounter())
        var iterator = ResponseBodySequence(body: .stream(reads), deadline: .now + .seconds(60), readTimeout: .seconds(30), inflating: coding).makeAsyncIterator()
        var output: [UInt8] = []
        while let piece = try await iterator.nextBuffer() { output += piece.readableBytesView }
        return output
    }

    /// Whether `error` is a ``TransportError`` whose description contains `text`.
    static func fails(_ error: any Error, with text: String) -> Bool {
        (error as? TransportError)?.description.contains(text) == true
    }

    @Test("hostile compressed bodies end in a clear error, never a partial success")
    func hostileBodies() async throws {
        let one = Gzip.compress(Array("one".utf8)), two = Gzip.compress(Array("two".utf8))
        // A second member that is not valid deflate.
        await #expect { _ = try await Self.inflateBody([one + [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF, 0xFF, 0xFF, 0xFF]]) } throws: {
            Self.fails($0, with: "not valid gzip or deflate")
        }
        // A body that ends inside its second member.
        await #expect { _ = try await Self.inflateBody([one + two.prefix(12)]) } throws: { Self.fails($0, with: "truncated") }
        // Only gzip goes on with more members: a zlib stream followed by one is trailing data.
        await #expect { _ = try await Self.inflateBody([Self.zlibWrapped(Array("a".utf8)) + two], coding: "deflate") } throws: {
            Self.fails($0, with: "after the end")
        }
        // A valid zlib header, then a bad block: zlib's own error, not a retry as raw deflate.
        await #expect { _ = try await Self.inflateBody([[0x78, 0x9C, 0xFF, 0xFF, 0xFF]], coding: "deflate") } throws: {
            Self.fails($0, with: "invalid block type")
        }
        // Over 1 MiB of empty stored blocks: nothing inflates, the body is not read for ever.
        let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
        let emptyBlocks = Array([[UInt8]](repeating: [0x00, 0x00, 0x00, 0xFF, 0xFF], count: 13_000).joined())   // 65,000 bytes
        await #expect { _ = try await Self.inflateBody([header] + Array(repeating: emptyBlocks, count: 20)) } throws: {
            Self.fails($0, with: "inflated to nothing")
        }
        // Empty reads between the others change nothing.
        #expect(try await Self.inflateBody([Array(one.prefix(5)), [], Array(one.dropFirst(5)), []]) == Array("one".utf8))
    }

    @Test("after an error the inflater decodes nothing more, even if valid data follows")
    func errorsAreFinal() throws {
        let inflater = try ResponseInflater()
        var input = ByteBuffer(bytes: Gzip.compress(Array("hello".utf8)) + [0x00] + Gzip.compress(Array("evil".utf8)))
        var output: [UInt8] = []
        #expect(throws: TransportError.self) {
            while let piece = try inflater.inflate(&input) { output += piece.readableBytesView }
        }
        #expect(throws: TransportError.self) { _ = try inflater.inflate(&input) }
        #expect(output == Array("hello".utf8))
    }

    @Test("raw deflate whose first read is one byte still decodes (the format is told after two bytes)")
    func rawDeflateOneByteFirst() async throws {
        let gzip = Gzip.compress(Self.content)
        let raw = Array(gzip[10..<(gzip.count - 8)])
        let chunks = [ByteBuffer(bytes: raw.prefix(1)), ByteBuffer(bytes: raw.dropFirst())]
        var iterator = ResponseBodySequence(body: .stream(CountingChunks(chunks: chunks, pulled: PullCounter())), deadline: .now + .seconds(60),
                                            readTimeout: .seconds(30), inflating: "deflate").makeAsyncIterator()
        var output: [UInt8] = []
        while let piece = try await iterator.nextBuffer() { output += piece.readableBytesView }
        #expect(output == Self.content)
    }

    @Test("raw deflate (no zlib header) is decoded for Content-Encoding deflate only")
    func rawDeflate() throws {
        let gzip = Gzip.compress(Self.content)
        let raw = Array(gzip[10..<(gzip.count - 8)])
        let inflater = try ResponseInflater(rawDeflateFallback: true)
        var input = ByteBuffer(bytes: raw)
        var output: [UInt8] = []
        while let piece = try inflater.inflate(&input) { output += piece.readableBytesView }
        #expect(output == Self.content)
        #expect(inflater.isFinished)

        let strict = try ResponseInflater()   // gzip: its header is required
        var again = ByteBuffer(bytes: raw)
        #expect(throws: TransportError.self) { _ = try strict.inflate(&again) }
    }

    @Test("who decodes gzip: the client when its decompression is on, the transport when off, nobody when unknown")
    func whoDecodes() {
        #expect(AsyncHTTPClientTransport.decoding(of: "GZIP", clientDecompresses: true) == .byClient)
        #expect(AsyncHTTPClientTransport.decoding(of: "deflate", clientDecompresses: false) == .byTransport)
        #expect(AsyncHTTPClientTransport.decoding(of: "gzip", clientDecompresses: nil) == .unknownDecoder)
        #expect(AsyncHTTPClientTransport.decoding(of: "br", clientDecompresses: false) == .unsupported)
        #expect(AsyncHTTPClientTransport.decoding(of: "x-gzip", clientDecompresses: false) == .byTransport)
        #expect(AsyncHTTPClientTransport.decoding(of: "x-gzip", clientDecompresses: true) == .unsupported)
        #expect(AsyncHTTPClientTransport.decoding(of: "identity", clientDecompresses: nil) == .identity)
    }

    @Test("a bomb in one read yields at most 64 KiB per call and leaves the rest of the read unread")
    func bombIsInflatedPieceByPiece() throws {
        let bomb = DeflateZeros.gzipBomb(inflatedSize: 100 * 1024 * 1024)   // ~630 KB
        let inflater = try ResponseInflater()
        var input = ByteBuffer(bytes: bomb)
        let first = try #require(try inflater.inflate(&input))
        #expect(first.readableBytes <= ResponseInflater.outputLimit)
        #expect(input.readableBytes > bomb.count - 1024, "zlib read only what 64 KiB of output needs")
        for _ in 0..<20 {
            let piece = try #require(try inflater.inflate(&input))
            #expect(piece.readableBytes <= ResponseInflater.outputLimit)
        }
    }

    @Test("data that is not gzip or deflate is an error naming it")
    func corruptData() throws {
        let inflater = try ResponseInflater()
        var input = ByteBuffer(string: "this is not compressed at all, just text")
        #expect {
            _ = try inflater.inflate(&input)
        } throws: { error in
            (error as? TransportError)?.description.contains("not valid gzip or deflate") == true
        }
    }

    @Test("bytes after the end of the compressed stream are an error, not ignored")
    func trailingData() throws {
        var input = ByteBuffer(bytes: Gzip.compress(Array("hello".utf8)) + Array("junk".utf8))
        let inflater = try ResponseInflater()
        #expect {
            while try inflater.inflate(&input) != nil {}
        } throws: { error in
            (error as? TransportError)?.description.contains("after the end") == true
        }
    }

    @Test("the body sequence reads the next network chunk only when the last is used up, and reports truncation")
    func readsOnDemand() async throws {
        let bomb = DeflateZeros.gzipBomb(inflatedSize: 50 * 1024 * 1024)
        let chunks = stride(from: 0, to: bomb.count, by: 64 * 1024).map { ByteBuffer(bytes: bomb[$0..<min(bomb.count, $0 + 64 * 1024)]) }
        let pulled = PullCounter()
        let counted = CountingChunks(chunks: chunks, pulled: pulled)
        let sequence = ResponseBodySequence(body: .stream(counted), deadline: .now + .seconds(60), readTimeout: .seconds(30), inflating: "gzip")
        var iterator = sequence.makeAsyncIterator()
        var inflated = 0
        while inflated < 4 * 1024 * 1024, let piece = try await iterator.nextBuffer() {
            #expect(piece.readableBytes <= ResponseInflater.outputLimit)
            inflated += piece.readableBytes
        }
        // 4 MiB of zeros come from ~25 KB of the bomb: the first 64 KiB read, nothing more.
        #expect(pulled.count.load(ordering: .relaxed) == 1)

        var empty = ResponseBodySequence(body: .bytes(ByteBuffer()), deadline: .now + .seconds(60), readTimeout: .seconds(30), inflating: "gzip").makeAsyncIterator()
        #expect(try await empty.nextBuffer() == nil, "an empty body labelled gzip is empty")

        let junkLater = CountingChunks(chunks: [ByteBuffer(bytes: Gzip.compress(Array("hello".utf8))), ByteBuffer(string: "junk")], pulled: PullCounter())
        var trailing = ResponseBodySequence(body: .stream(junkLater), deadline: .now + .seconds(60), readTimeout: .seconds(30), inflating: "gzip").makeAsyncIterator()
        await #expect {
            while try await trailing.nextBuffer() != nil {}
        } throws: { error in
            (error as? TransportError)?.description.contains("after the end") == true
        }

        let cut = Array(Gzip.compress(Self.content).dropLast(100))
        var truncated = ResponseBodySequence(body: .bytes(ByteBuffer(bytes: cut)), deadline: .now + .seconds(60), readTimeout: .seconds(30), inflating: "gzip").makeAsyncIterator()
        await #expect {
            while try await truncated.nextBuffer() != nil {}
        } throws: { error in
            (error as? TransportError)?.description.contains("truncated") == true
        }
    }
}

/// Chunks as an async sequence that counts how many were asked for.
private struct CountingChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let chunks: [ByteBuffer]
    let pulled: PullCounter

    struct AsyncIterator: AsyncIteratorProtocol {
        var index = 0
        let chunks: [ByteBuffer]
        let pulled: PullCounter

        mutating func next() async -> ByteBuffer? {
            guard index < chunks.count else { return nil }
            pulled.count.add(1, ordering: .relaxed)
            defer { index += 1 }
            return chunks[index]
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: chunks, pulled: pulled)
    }
}

/// How many chunks were asked for.
private final class PullCounter: Sendable {
    let count = Atomic<Int>(0)
}
