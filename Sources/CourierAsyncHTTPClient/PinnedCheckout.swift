import Courier
import OpenAPIRuntime

/// A pinned host's client marked as busy (``PinningAsyncHTTPClientTransport``), until
/// ``release()`` or until the checkout itself is released: a response body that streams from
/// the client's connection holds its checkout (``OwnedResponseBody``), so the client is not
/// shut down while the body is read, and is free again once the body is done with.
final class PinnedCheckout: Sendable {
    private let action: Locked<(@Sendable () -> Void)?>

    /// A checkout that runs `release` once, when it ends.
    init(_ release: @escaping @Sendable () -> Void) {
        action = Locked(release)
    }

    /// Ends the checkout (again: nothing happens).
    func release() {
        let release = action.withLock { action in
            defer { action = nil }
            return action
        }
        release?()
    }

    deinit { release() }
}

/// A response body's bytes, keeping `owner` alive for as long as the body or one of its
/// iterators is.
struct OwnedResponseBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk
    let body: HTTPBody
    let owner: PinnedCheckout

    func makeAsyncIterator() -> Iterator {
        Iterator(base: body.makeAsyncIterator(), owner: owner)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        let owner: PinnedCheckout

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            try await base.next()
        }
    }
}
