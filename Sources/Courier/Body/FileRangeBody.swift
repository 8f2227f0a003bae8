import Foundation
import OpenAPIRuntime

/// The bytes of a file from `offset`, `length` of them, read from disk in chunks as the body is
/// sent — a resumable upload's append: the file is never read from its start again, and never
/// held whole. Each iteration starts afresh, so the body can be sent again (a 307/308).
struct FileRangeBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let url: URL
    let offset: Int64
    let length: Int64
    let chunkSize: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let range: FileRangeBody
        var reader: FileChunks?
        var remaining: Int64

        mutating func next() async throws -> ArraySlice<UInt8>? {
            try Task.checkCancellation()
            guard remaining > 0 else { return nil }
            if reader == nil { reader = try FileChunks(url: range.url, chunkSize: range.chunkSize, from: range.offset) }
            guard let chunk = try reader!.next(upTo: Int(Swift.min(Int64(range.chunkSize), remaining))) else {
                // Shorter than when the upload started: the server must not take this request
                // for the whole rest, so fail it (a transport then reports the body it could not read).
                throw FileChangedError(path: range.url.path, expected: range.offset + range.length, found: range.offset + range.length - remaining)
            }
            remaining -= Int64(chunk.count)
            return chunk[...]
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(range: self, reader: nil, remaining: length) }

    /// The range as a replayable body of known length.
    func makeBody() -> HTTPBody { HTTPBody(self, length: .known(length), iterationBehavior: .multiple) }

    /// The file got shorter while it was being uploaded.
    struct FileChangedError: Error, CustomStringConvertible {
        var path: String
        var expected: Int64
        var found: Int64
        var description: String { "'\(path)' ended at byte \(found) while it was uploaded (it had \(expected) or more)" }
    }
}
