import Foundation
import OpenAPIRuntime

/// Where a transport that already holds a response body whole in memory leaves those bytes for
/// the client, beside the `HTTPBody` it returns: collecting the body then takes no trip through
/// `HTTPBody`'s type-erased async iterator, its closures and its async calls.
///
/// The client offers one in ``BodyChannels/wholeResponse`` when it collects the body
/// (`send`, `data(for:)`, `response(for:)`). The bytes are taken only for the very `HTTPBody`
/// they were left with, compared by identity and kept alive here so that no other body can
/// take its address: a middleware that replaces the body, a cache hit, a coalesced answer or a
/// later attempt's answer is read through its body as usual. Transports that stream (or that
/// do not know this type) simply never leave anything.
///
/// The slot is a ``Locked`` value (a mutex in the slot's own allocation): two transport calls
/// may run at once under a middleware that races them, and one left running may write while
/// the client reads.
///
/// The bytes are `Data`, the type the client returns: a transport that receives `Data`
/// (URLSession) hands a body that came in one piece on without a copy (later pieces are
/// appended to the first), and one that reads `ByteBuffer`s (AsyncHTTPClient) copies them
/// once, into the `Data` the caller gets. Build the `HTTPBody` that
/// goes with them with `HTTPBody.holding(_:)`, which does not copy them either.
package struct WholeResponseBody: Sendable {
    private let slot = Locked<(body: HTTPBody, bytes: Data)?>(nil)

    /// An empty slot.
    package init() {}

    /// Leaves `bytes`, the whole content of `body`, for the client (replacing whatever an
    /// earlier attempt left).
    package func leave(_ bytes: Data, for body: HTTPBody) {
        slot.withLock { $0 = (body, bytes) }
    }

    /// Whether bytes are left for `body` (it was read whole, and holds no connection).
    package func holds(_ body: HTTPBody) -> Bool {
        slot.withLock { $0?.body === body }
    }

    /// The bytes left for `body`, if it is the body they were left with; the slot is emptied.
    package func take(for body: HTTPBody) -> Data? {
        slot.withLock { slot in
            guard let left = slot, left.body === body else { return nil }
            slot = nil
            return left.bytes
        }
    }
}
