import Foundation
import OpenAPIRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a transport that already holds a response body whole in memory leaves those bytes for
/// the client, beside the `HTTPBody` it returns: collecting the body then takes no trip through
/// `HTTPBody`'s type-erased async iterator (its iterator, closures and async calls cost
/// ≈ 3,000 instructions per request, callgrind).
///
/// The client offers one in ``RequestContext/wholeResponseBody`` when it collects the body
/// (`send`, `data(for:)`, `response(for:)`). The bytes are taken only for the very `HTTPBody`
/// they were left with, compared by identity and kept alive here so that no other body can
/// take its address: a middleware that replaces the body, a cache hit, a coalesced answer or a
/// later attempt's answer is read through its body as usual. Transports that stream (or that
/// do not know this type) simply never leave anything.
///
/// One is made for every collected request, so its lock is a `pthread_mutex_t` in the object's
/// own storage (a `ManagedBuffer`, as NIO's `NIOLock` does): `Locked`'s `NSLock` allocates a
/// mutex and a condition on Linux, and made and freed per request it cost ≈ 1,200
/// instructions more (callgrind). The lock is needed: two transport calls may run at once
/// under a middleware that races them, and one left running may write while the client reads.
package struct WholeResponseBody: @unchecked Sendable {  // safe: the slot is only touched under its own mutex, see below
    // @unchecked Sendable is safe: `storage`'s slot is read and written only between `lock()`
    // and `unlock()` of the mutex stored in the same object, which lives as long as it does.
    private let storage: Storage

    /// An empty slot.
    package init() {
        storage = Storage.make()
    }

    /// Leaves `bytes`, the whole content of `body`, for the client (replacing whatever an
    /// earlier attempt left).
    package func leave(_ bytes: HTTPBody.ByteChunk, for body: HTTPBody) {
        storage.withLock { $0 = (body, bytes) }
    }

    /// The bytes left for `body`, if it is the body they were left with; the slot is emptied.
    package func take(for body: HTTPBody) -> HTTPBody.ByteChunk? {
        storage.withLock { slot in
            guard let left = slot, left.body === body else { return nil }
            slot = nil
            return left.bytes
        }
    }

    /// The slot (the header) and its mutex (the one element), in one allocation.
    private final class Storage: ManagedBuffer<(body: HTTPBody, bytes: HTTPBody.ByteChunk)?, pthread_mutex_t> {
        static func make() -> Storage {
            let buffer = create(minimumCapacity: 1) { _ in nil }
            buffer.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                pthread_mutex_init(mutex, nil)
            }
            return unsafeDowncast(buffer, to: Storage.self)
        }

        deinit {
            withUnsafeMutablePointerToElements { mutex in
                pthread_mutex_destroy(mutex)
                _ = mutex.deinitialize(count: 1)
            }
        }

        func withLock<T>(_ body: (inout (body: HTTPBody, bytes: HTTPBody.ByteChunk)?) -> T) -> T {
            withUnsafeMutablePointers { slot, mutex in
                pthread_mutex_lock(mutex)
                defer { pthread_mutex_unlock(mutex) }
                return body(&slot.pointee)
            }
        }
    }
}
