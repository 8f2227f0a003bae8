@testable import Courier
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import Testing

/// The answers a resumed download must not trust — a server that ignores `Range`, a changed
/// resource, hostile `206`s — digests, and the requests that are never resumed.
extension ResumableDownloadTests {
    // MARK: Answers that cannot continue the file

    @Test("a server that ignores Range restarts the file cleanly from zero")
    func ignoresRange() async throws {
        try await withDirectory { directory in
            let origin = FakeOrigin(.init(content: Self.content, cuts: [250], ignoresRanges: true))
            let (client, transport) = client(origin)
            let destination = directory.appendingPathComponent("f")
            let result = try await client.download(Self.file, to: destination)
            #expect(transport.requests.map { $0.headerFields[.range] } == [nil, "bytes=250-"])
            #expect(result.restarts == 1)
            #expect(result.resumptions == 1)
            #expect(try Data(contentsOf: destination) == Data(Self.content))
        }
    }

    @Test("a resource that changed mid-way (If-Range no longer matches) restarts from zero: the new file, never a mix")
    func changedResource() async throws {
        try await withDirectory { directory in
            let next = FakeOrigin.bytes(1200, seed: 2)
            let origin = FakeOrigin(.init(content: Self.content, cuts: [250], changes: [(next, "\"v2\"")]))
            let (client, _) = client(origin)
            let destination = directory.appendingPathComponent("f")
            let result = try await client.download(Self.file, to: destination)
            #expect(result.restarts == 1)
            #expect(try Data(contentsOf: destination) == Data(next))
        }
    }

    @Test("a weak ETag is never sent in If-Range: a cut restarts from zero without Range")
    func weakValidator() async throws {
        try await withDirectory { directory in
            let origin = FakeOrigin(.init(content: Self.content, etag: "W/\"v1\"", cuts: [250]))
            let (client, transport) = client(origin)
            let destination = directory.appendingPathComponent("f")
            let result = try await client.download(Self.file, to: destination)
            #expect(transport.requests.map { $0.headerFields[.range] } == [nil, nil])
            #expect(transport.requests.allSatisfy { $0.headerFields[.ifRange] == nil })
            #expect(result.restarts == 1)
            #expect(try Data(contentsOf: destination) == Data(Self.content))
        }
    }

    @Test("restarts are bounded: a resource that changes at every cut fails with tooManyRestarts")
    func restartsBounded() async throws {
        try await withDirectory { directory in
            let changes = (2...9).map { (FakeOrigin.bytes(1000, seed: UInt64($0)), "\"v\($0)\"") }
            let origin = FakeOrigin(.init(content: Self.content, cuts: [500, 500, 500, 500, 500, 500], changes: changes))
            let (client, _) = client(origin)
            let error = await #expect(throws: APIError.self) {
                try await client.download(Self.file, to: directory.appendingPathComponent("f"), options: DownloadOptions(maxRestarts: 2))
            }
            #expect(error?.kind == .invalidResponse)
            #expect((error?.underlyingError as? DownloadError)?.reason == .tooManyRestarts)
        }
    }

    // MARK: Hostile answers

    @Test("a Content-Range that does not start where the file ends is an error; the partial file is as the token says")
    func mismatchedContentRange() async throws {
        try await withDirectory { directory in
            let origin = FakeOrigin(.init(content: Self.content, cuts: [250], contentRangeShift: -10))
            let (client, _) = client(origin)
            let error = await #expect(throws: APIError.self) {
                try await client.download(Self.file, to: directory.appendingPathComponent("f"), options: DownloadOptions())
            }
            #expect(error?.kind == .invalidResponse)
            #expect(error?.statusCode == 206)
            #expect((error?.underlyingError as? DownloadError)?.reason == .contentRangeMismatch)
            #expect(String(describing: try #require(error)).contains("Content-Range bytes 240-999/1000 for bytes=250-"))
            let token = try #require(error?.resumeToken)
            #expect(token.bytesOnDisk == 250)
            let partial = try Data(contentsOf: directory.appendingPathComponent(token.partialFileName))
            #expect(partial == Data(Self.content.prefix(250)))
        }
    }

    @Test("a 206 to a request that asked for no range is an error, and nothing is kept")
    func unrequestedPartialContent() async throws {
        try await withDirectory { directory in
            let origin = FakeOrigin(.init(content: Self.content, partialForPlainRequests: true))
            let (client, _) = client(origin)
            let error = await #expect(throws: APIError.self) {
                try await client.download(Self.file, to: directory.appendingPathComponent("f"), options: DownloadOptions())
            }
            #expect((error?.underlyingError as? DownloadError)?.reason == .unrequestedPartialContent)
            #expect(error?.resumeToken == nil)
            #expect(directoryContents(directory).isEmpty)
        }
    }

    @Test("a 206 whose body goes on past its Content-Range is an error; nothing past the range is written")
    func overrun() async throws {
        try await withDirectory { directory in
            let origin = FakeOrigin(.init(content: Self.content, cuts: [250], extraBytes: 5000))
            let (client, _) = client(origin)
            let error = await #expect(throws: APIError.self) {
                try await client.download(Self.file, to: directory.appendingPathComponent("f"), options: DownloadOptions())
            }
            #expect((error?.underlyingError as? DownloadError)?.reason == .rangeOverrun)
            let token = try #require(error?.resumeToken)
            #expect(token.bytesOnDisk == 1000)
            let partial = try Data(contentsOf: directory.appendingPathComponent(token.partialFileName))
            #expect(partial == Data(Self.content))
        }
    }

    // MARK: Digests

    @Test("a Repr-Digest that matches the file is checked and reported")
    func digestMatches() async throws {
        try await withDirectory { directory in
            let digest = "sha-256=:\(Data(sha256(Self.content)).base64EncodedString()):"
            let origin = FakeOrigin(.init(content: Self.content, cuts: [250, 700], reprDigest: digest))
            let (client, _) = client(origin)
            let result = try await client.download(Self.file, to: directory.appendingPathComponent("f"))
            #expect(result.digestVerified)
            #expect(result.resumptions == 2)
        }
    }

    @Test("a file that does not match the server's Repr-Digest fails clearly and is removed; the destination is untouched")
    func digestMismatch() async throws {
        try await withDirectory { directory in
            let destination = directory.appendingPathComponent("f")
            try Data("old".utf8).write(to: destination)
            let digest = "sha-256=:\(Data(sha256(Array("something else".utf8))).base64EncodedString()):"
            let origin = FakeOrigin(.init(content: Self.content, reprDigest: digest))
            let (client, _) = client(origin)
            let error = await #expect(throws: APIError.self) { try await client.download(Self.file, to: destination, options: DownloadOptions()) }
            #expect(error?.kind == .invalidResponse)
            #expect((error?.underlyingError as? DownloadError)?.reason == .digestMismatch)
            #expect(error?.resumeToken == nil)
            #expect(directoryContents(directory) == ["f"])
            #expect(try String(contentsOf: destination, encoding: .utf8) == "old")
        }
    }

    @Test("digest checking can be turned off")
    func digestOff() async throws {
        try await withDirectory { directory in
            let digest = "sha-256=:\(Data(sha256(Array("something else".utf8))).base64EncodedString()):"
            let (client, _) = client(FakeOrigin(.init(content: Self.content, reprDigest: digest)))
            let result = try await client.download(Self.file, to: directory.appendingPathComponent("f"), options: DownloadOptions(verifiesDigest: false))
            #expect(!result.digestVerified)
        }
    }

    @Test("the request's own size limit is held against the whole file when a part is resumed, not against the part")
    func sizeLimitOnResumedPart() async throws {
        try await withDirectory { directory in
            let destination = directory.appendingPathComponent("f")
            let (first, _) = client(FakeOrigin(.init(content: Self.content, cuts: [250])), retry: false)
            let error = await #expect(throws: APIError.self) { try await first.download(Self.file, to: destination, options: DownloadOptions()) }
            let token = try #require(error?.resumeToken)
            let (second, _) = client(FakeOrigin(.init(content: Self.content)))
            var limited = Self.file
            limited.options.maxResponseSize = 800   // the 750 bytes left fit; the 1000-byte file does not
            let refused = await #expect(throws: APIError.self) { try await second.download(limited, to: destination, resumingFrom: token) }
            #expect(refused?.kind == .resourceTooLarge)
            #expect(refused?.sizeLimit == 800)
            limited.options.maxResponseSize = 1000
            let again = try #require(refused?.resumeToken)
            let result = try await second.download(limited, to: destination, resumingFrom: again)
            #expect(result.byteCount == 1000)
        }
    }

    // MARK: What is not resumed

    @Test("a POST is never resumed with a range, nor sent again by itself")
    func post() async throws {
        try await withDirectory { directory in
            let origin = FakeOrigin(.init(content: Self.content, cuts: [250]))
            let (client, transport) = client(origin)
            let request = Request<Data>(method: .post, path: "/exports")
            let error = await #expect(throws: APIError.self) {
                try await client.download(request, to: directory.appendingPathComponent("f"), options: DownloadOptions())
            }
            #expect(error?.resumeToken == nil)
            #expect(transport.requests.count == 1)
            #expect(directoryContents(directory).isEmpty)
        }
    }

    @Test("a request with a Range of its own gets its 206 as the answer, resumed by nothing")
    func callersOwnRange() async throws {
        try await withDirectory { directory in
            let origin = FakeOrigin(.init(content: Self.content))
            let (client, _) = client(origin)
            var request = Self.file
            request.headers[.range] = "bytes=900-"
            let destination = directory.appendingPathComponent("f")
            try await client.download(request, to: destination)
            #expect(try Data(contentsOf: destination) == Data(Self.content.suffix(100)))
        }
    }
}

/// SHA-256 by the core's implementation (tested on its own against FIPS 180-4's vectors).
func sha256(_ bytes: [UInt8]) -> [UInt8] {
    SHA256.digest(bytes)
}

func sha256Hex(_ bytes: [UInt8]) -> String {
    SHA256.hex(SHA256.digest(bytes))
}
