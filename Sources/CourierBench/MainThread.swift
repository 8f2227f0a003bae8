import Foundation

/// Running the program's async work from a synchronous `main`.
enum MainThread {
    /// Runs `body` in a task and blocks the calling thread until it ends; returns the exit
    /// status (0, or 1 after printing the error to stderr).
    static func runBlocking(_ body: @escaping @Sendable () async throws -> Void) -> Int32 {
        let done = DispatchSemaphore(value: 0)
        let status = Status()
        Task.detached {
            do {
                try await body()
            } catch {
                FileHandle.standardError.write(Data("courier-bench: \(error)\n".utf8))
                status.failed()
            }
            done.signal()
        }
        done.wait()
        return status.value
    }

    /// The exit status, set from the task and read after it ended.
    /// `@unchecked`: `code` is only touched under `lock` (`Mutex` needs macOS 15).
    private final class Status: @unchecked Sendable {  // safe: see above, all access under `lock`
        private let lock = NSLock()
        private var code: Int32 = 0
        /// Records a failure (exit status 1).
        func failed() { lock.withLock { code = 1 } }
        /// The exit status.
        var value: Int32 { lock.withLock { code } }
    }
}
