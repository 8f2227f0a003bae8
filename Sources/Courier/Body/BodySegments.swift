import Foundation
import OpenAPIRuntime

/// A piece of a body that is produced when the body is sent: bytes in memory or a file.
package enum BodySegment: Sendable {
    /// Bytes in memory (a part's headers, a text field).
    case bytes([UInt8])
    /// The whole content of a file, read when the body is sent.
    case file(URL)

    /// The segment's length in bytes (`nil` when a file's size cannot be read, or is not what
    /// reading the file gives: see ``FileChunks/length(of:)``).
    package var length: Int? {
        switch self {
        case .bytes(let bytes): return bytes.count
        case .file(let url): return FileChunks.length(of: url)
        }
    }
}

extension BodySegment {
    /// Writes the segments, in order, to a new file at `url` (a multipart form with files, for a
    /// transport that can only send a file from disk), in chunks of `chunkSize` bytes.
    /// The file is created owner-only (``OwnerOnlyFile``): it holds the form's files and fields.
    package static func write(_ segments: [BodySegment], to url: URL, chunkSize: Int = 1 << 20) throws {
        let output = try OwnerOnlyFile.create(at: url)
        defer { try? output.close() }
        for segment in segments {
            switch segment {
            case .bytes(let bytes):
                try output.write(contentsOf: bytes)
            case .file(let file):
                var reader = try FileChunks(url: file, chunkSize: chunkSize)
                while let chunk = try reader.next() { try output.write(contentsOf: chunk) }
            }
        }
    }
}

/// An async sequence of byte chunks read from segments. Each iteration starts afresh, so the
/// body it backs can be sent again (retries, 307/308 redirects).
struct SegmentSequence: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let segments: [BodySegment]
    let chunkSize: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<BodySegment>
        var file: FileChunks?
        let chunkSize: Int

        mutating func next() async throws -> ArraySlice<UInt8>? {
            while true {
                try Task.checkCancellation()
                if var reader = file {
                    if let chunk = try reader.next() { file = reader; return chunk[...] }
                    file = nil
                    continue
                }
                guard let segment = remaining.popFirst() else { return nil }
                switch segment {
                case .bytes(let bytes): if !bytes.isEmpty { return bytes[...] }
                case .file(let url): file = try FileChunks(url: url, chunkSize: chunkSize)
                }
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(remaining: segments[...], file: nil, chunkSize: chunkSize)
    }

    /// The segments as a replayable `HTTPBody` with a known length when every file's size is
    /// known, registered with its ``UploadDescription`` so a transport can send the files from
    /// disk itself.
    func makeBody() -> HTTPBody {
        var total = 0
        var known = true
        for segment in segments {
            if let length = segment.length { total += length } else { known = false }
        }
        let body = HTTPBody(self, length: known ? .known(Int64(total)) : .unknown, iterationBehavior: .multiple)
        let source: UploadDescription.Source
        if segments.count == 1, case .file(let url) = segments[0] { source = .file(url) } else { source = .segments(segments) }
        return .registered(body, as: UploadDescription(source: source))
    }
}

/// Reads a file in fixed-size chunks. The handle is closed when the reader is done or dropped.
struct FileChunks {
    private final class Handle {
        let handle: FileHandle
        init(_ handle: FileHandle) { self.handle = handle }
        deinit { try? handle.close() }
    }
    private let handle: Handle
    private let chunkSize: Int

    /// A reader from `offset` on (a resumable upload's append starts there).
    init(url: URL, chunkSize: Int, from offset: Int64 = 0) throws {
        self.handle = Handle(try FileHandle(forReadingFrom: url))
        self.chunkSize = chunkSize
        if offset > 0 { try handle.handle.seek(toOffset: UInt64(offset)) }
    }

    mutating func next() throws -> [UInt8]? {
        try next(upTo: chunkSize)
    }

    /// The next chunk of at most `count` bytes; `nil` at the end of the file.
    mutating func next(upTo count: Int) throws -> [UInt8]? {
        guard let data = try handle.handle.read(upToCount: count), !data.isEmpty else { return nil }
        return Array(data)
    }

    /// The size of a regular file, through symbolic links (`attributesOfItem` alone describes
    /// the link: a 30-byte length declared for a 5 MB file fails the upload); throws when it
    /// does not exist, cannot be read, or is not a regular file (a directory, a FIFO: its size
    /// is unknown, so stream it with `.stream` instead).
    static func size(of url: URL) throws -> Int {
        let resolved = url.resolvingSymlinksInPath()
        let attributes = try FileManager.default.attributesOfItem(atPath: resolved.path)
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw NotARegularFile(path: url.path, type: (attributes[.type] as? FileAttributeType)?.rawValue ?? "unknown")
        }
        return (attributes[.size] as? NSNumber)?.intValue ?? 0
    }

    /// The number of bytes reading the file gives, when the file system says: its size — except
    /// for a regular file of size 0 that has content all the same (the kernel's `/proc` and
    /// `/sys` files), whose length is then unknown (`nil`), so that the body is sent as read
    /// instead of declared empty. `nil` too when the size cannot be read.
    static func length(of url: URL) -> Int? {
        guard let size = try? size(of: url) else { return nil }
        guard size == 0 else { return size }
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let first = try? handle.read(upToCount: 1) else { return nil }
        return first.isEmpty ? 0 : nil
    }

    /// A file body that names something other than a regular file.
    struct NotARegularFile: Error, CustomStringConvertible {
        var path: String
        var type: String
        var description: String {
            "'\(path)' is not a regular file (\(type)): its size is not known, so it cannot be sent as a file body; send it as a .stream body"
        }
    }
}
