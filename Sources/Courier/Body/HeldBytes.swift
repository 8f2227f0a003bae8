import Foundation
import OpenAPIRuntime

/// The bytes of a request body the client holds in memory (a JSON, `Data` or form body),
/// shared by the body's own sequence, which keeps them alive, and — weakly — by its
/// ``UploadDescription``: while the body lives, a transport can send the bytes as they are
/// instead of reading them back as a stream; once it is gone, the upload registry keeps nothing
/// of them.
package final class HeldBytes: Sendable {
    /// The body's bytes.
    package let data: Data

    init(_ data: Data) {
        self.data = data
    }
}

extension HTTPBody {
    /// A body of `data`'s bytes, registered with them as ``UploadDescription/heldBytes``. The
    /// bytes are copied into chunks (of ``BodyReading/uploadChunkSize``) only as the body is read
    /// (a transport that sends the held bytes never reads it), and it can be read as often as
    /// asked.
    package static func registered(_ data: Data) -> HTTPBody {
        let held = HeldBytes(data)
        let body = HTTPBody(HeldBytesSequence(held: held), length: .known(Int64(data.count)), iterationBehavior: .multiple)
        return .registered(body, as: UploadDescription(heldBytes: held))
    }
}

/// The held bytes in chunks of at most ``BodyReading/uploadChunkSize``, each copied as it is
/// asked for (none when they are empty): a reader that wants the first kilobyte (debug logging)
/// copies one chunk, not the whole body.
private struct HeldBytesSequence: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    typealias Failure = Never

    let held: HeldBytes

    struct AsyncIterator: AsyncIteratorProtocol {
        let data: Data
        var offset = 0

        mutating func next() async -> ArraySlice<UInt8>? {
            guard offset < data.count else { return nil }
            let end = offset + Swift.min(BodyReading.uploadChunkSize, data.count - offset)
            defer { offset = end }
            let start = data.startIndex
            return ArraySlice(data[(start + offset)..<(start + end)])
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(data: held.data)
    }
}
