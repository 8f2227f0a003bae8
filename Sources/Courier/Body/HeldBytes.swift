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
    /// bytes are copied into a chunk only when the body is read (a transport that sends the held
    /// bytes never reads it), and it can be read as often as asked.
    package static func registered(_ data: Data) -> HTTPBody {
        let held = HeldBytes(data)
        let body = HTTPBody(HeldBytesSequence(held: held), length: .known(Int64(data.count)), iterationBehavior: .multiple)
        return .registered(body, as: UploadDescription(heldBytes: held))
    }
}

/// The held bytes as one chunk per iteration (none when they are empty).
private struct HeldBytesSequence: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    typealias Failure = Never

    let held: HeldBytes

    struct AsyncIterator: AsyncIteratorProtocol {
        var data: Data?

        mutating func next() async -> ArraySlice<UInt8>? {
            guard let data, !data.isEmpty else { return nil }
            self.data = nil
            return ArraySlice(data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(data: held.data)
    }
}
