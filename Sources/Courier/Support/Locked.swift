import Foundation

/// A value protected by a lock, for the few pieces of shared mutable state Courier keeps
/// (the URLSession task table, retry budgets, token state, stub recordings).
///
/// `@unchecked Sendable` is safe here because `value` is private and every read and write
/// goes through `withLock`, which holds `lock` for the whole access; the closure cannot
/// escape the reference (it receives `inout`), so no unsynchronised access is possible.
package final class Locked<Value>: @unchecked Sendable {  // safe: every access holds `lock`, see above
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Locked where Value: Sendable {
    /// A copy of the current value.
    package var current: Value { withLock { $0 } }
}
