import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value protected by a lock, for the few pieces of shared mutable state Courier keeps
/// (the URLSession task table and each task's state, retry budgets, token state, stub
/// recordings).
///
/// The value and its `pthread_mutex_t` live in one allocation (a `ManagedBuffer`, as NIO's
/// `NIOLockedValueBox` does), and `Locked` itself is a struct holding a reference to it: copies
/// share the one value. Some are made for every request (one per URLSession task), and
/// Foundation's `NSLock` on Linux allocates a mutex and a condition of its own besides its
/// object, made and freed per request, and each lock and unlock goes through a class call
/// (BENCHMARKS.md has the measurement). Hand-written
/// because `Synchronization.Mutex` needs macOS 15 and Courier supports macOS 13, and NIO's box is
/// not a dependency of the core library.
///
/// `@unchecked Sendable` is safe here because the value is reached only through `withLock`,
/// which holds the mutex stored beside it for the whole access; the closure receives the value
/// `inout` and cannot keep a reference to it, so no unsynchronised access is possible.
package struct Locked<Value>: @unchecked Sendable {  // safe: every access holds the mutex, see above
    private let storage: Storage

    package init(_ value: Value) {
        storage = Storage.make(value)
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try storage.withLock(body)
    }

    /// The value (the header) and its mutex (the one element), in one allocation.
    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        static func make(_ value: Value) -> Storage {
            let buffer = create(minimumCapacity: 1) { _ in value }
            // A C struct with no Swift invariants: `pthread_mutex_init` initializes the memory.
            buffer.withUnsafeMutablePointerToElements { mutex in _ = pthread_mutex_init(mutex, nil) }
            return unsafeDowncast(buffer, to: Storage.self)
        }

        deinit {
            withUnsafeMutablePointerToElements { mutex in _ = pthread_mutex_destroy(mutex) }
        }

        @inline(__always)
        func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
            try withUnsafeMutablePointers { value, mutex in
                pthread_mutex_lock(mutex)
                defer { pthread_mutex_unlock(mutex) }
                return try body(&value.pointee)
            }
        }
    }
}

extension Locked where Value: Sendable {
    /// A copy of the current value.
    package var current: Value { withLock { $0 } }
}
