import Foundation
import NIOCore

/// A value protected by a lock, safe to share between concurrent request handlers.
///
/// The test server keeps only tiny pieces of state (counters, the current token), so a
/// plain `NSLock` is simpler and more portable than `Synchronization.Mutex`, which needs
/// macOS 15.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Wraps `value`.
    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// The mutable state of one ``TestServer``: counters, the valid bearer token, the per-key
/// counters of `/flaky/{key}` and whether the server is stopping.
///
/// Every ``TestServer`` has its own state, so two servers started at once never interfere.
final class TestServerState: Sendable {
    /// The values behind the lock.
    struct Values: Sendable {
        var requestCount = 0
        var tokenNumber = 1
        var rotations = 0
        var flakyAttempts: [String: Int] = [:]
        var counters: [String: Int] = [:]
        var failing: Set<String> = []
        var isStopping = false
        var openChannels: [ObjectIdentifier: any Channel] = [:]
    }

    private let values = Locked(Values())

    /// Creates the initial state: no requests seen, valid token `token-1`.
    init() {}

    /// Total number of requests that reached the server.
    var requestCount: Int { values.withLock { $0.requestCount } }

    /// Counts one request that reached the server.
    func countRequest() {
        values.withLock { $0.requestCount += 1 }
    }

    /// The bearer token `/auth/protected` currently accepts.
    var currentToken: String { values.withLock { "token-\($0.tokenNumber)" } }

    /// Replaces the valid token with the next one and returns it.
    func rotateToken() -> String {
        values.withLock {
            $0.tokenNumber += 1
            $0.rotations += 1
            return "token-\($0.tokenNumber)"
        }
    }

    /// How many times `/auth/rotate` was called.
    var rotationCount: Int { values.withLock { $0.rotations } }

    /// Records one request to `/flaky/{key}` and returns its 1-based attempt number.
    func nextFlakyAttempt(for key: String) -> Int {
        values.withLock {
            let attempt = ($0.flakyAttempts[key] ?? 0) + 1
            $0.flakyAttempts[key] = attempt
            return attempt
        }
    }

    /// Adds one to the counter `name` and returns its new value.
    func increment(_ name: String) -> Int {
        values.withLock {
            let value = ($0.counters[name] ?? 0) + 1
            $0.counters[name] = value
            return value
        }
    }

    /// The counter `name` (0 when never incremented).
    func counter(_ name: String) -> Int { values.withLock { $0.counters[name] ?? 0 } }

    /// Whether the routes keyed `key` answer with a failure (the cache routes' `stale-if-error` tests).
    func isFailing(_ key: String) -> Bool { values.withLock { $0.failing.contains(key) } }

    /// Makes the routes keyed `key` fail (or recover).
    func setFailing(_ key: String, _ failing: Bool) {
        values.withLock {
            if failing { $0.failing.insert(key) } else { $0.failing.remove(key) }
        }
    }

    /// Remembers `channel` until it closes, so ``closeOpenChannels()`` can reach it.
    func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let isNew = values.withLock { values in
            guard values.openChannels[id] == nil else { return false }
            values.openChannels[id] = channel
            return true
        }
        if isNew {
            channel.closeFuture.whenComplete { [self] _ in
                _ = values.withLock { $0.openChannels.removeValue(forKey: id) }
            }
        }
    }

    /// Closes every connection that is still open (used by ``TestServer/stop()`` after a short
    /// grace period; pending writes are dropped).
    func closeOpenChannels() {
        for channel in values.withLock({ Array($0.openChannels.values) }) {
            channel.close(promise: nil)
        }
    }

    /// Whether ``TestServer/stop()`` was called; long-running handlers end early when set.
    var isStopping: Bool { values.withLock { $0.isStopping } }

    /// Marks the server as stopping, so slow and endless responses wind down at once.
    func beginStopping() {
        values.withLock { $0.isStopping = true }
    }

    /// Sleeps for `milliseconds`, in short slices, so that the wait ends early (throwing
    /// `CancellationError`) when the task is cancelled or the server is stopping.
    func pause(milliseconds: Int) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(max(0, milliseconds)))
        while clock.now < deadline {
            if isStopping { throw CancellationError() }
            let remaining = clock.now.duration(to: deadline)
            try await Task.sleep(for: min(remaining, .milliseconds(50)))
        }
    }
}
