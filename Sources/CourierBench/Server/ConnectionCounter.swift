import Hummingbird
import NIOCore
import Synchronization

/// Counts the TCP connections the bench server accepts.
///
/// Hummingbird sets up each accepted connection's pipeline by calling
/// `HTTP1Channel.Configuration.additionalChannelHandlers` once; ``accepted()`` is that call, so
/// it runs exactly once per connection. It adds no handler: counting needs none.
enum ConnectionCounter {
    private static let total = Atomic<Int>(0)

    /// Connections accepted since the server started.
    static var count: Int { total.load(ordering: .relaxed) }

    /// Records one accepted connection; returns the (empty) list of handlers to add.
    static func accepted() -> [any RemovableChannelHandler] {
        total.add(1, ordering: .relaxed)
        return []
    }
}
