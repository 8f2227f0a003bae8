import OpenAPIRuntime

extension HTTPBody {
    /// A body with the same bytes, length and iteration behaviour that calls `progress` after each
    /// chunk is handed on (to the transport, for an upload).
    ///
    /// A body that can be iterated more than once (a file, bytes in memory) starts counting from
    /// zero again on each iteration, so a retried upload reports its progress afresh.
    ///
    /// ```swift
    /// let body = HTTPBody(data).reportingProgress { print($0) }
    /// ```
    public func reportingProgress(_ progress: @escaping TransferProgressHandler) -> HTTPBody {
        let total: Int64?
        if case .known(let length) = self.length { total = length } else { total = nil }
        return HTTPBody(
            ProgressReportingSequence(base: self, total: total, progress: progress),
            length: self.length,
            iterationBehavior: self.iterationBehavior
        )
    }
}

/// The chunks of a body, counted as they pass.
struct ProgressReportingSequence: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let base: HTTPBody
    let total: Int64?
    let progress: TransferProgressHandler

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        var completed: Int64 = 0
        let total: Int64?
        let progress: TransferProgressHandler

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard let chunk = try await base.next() else { return nil }
            completed += Int64(chunk.count)
            progress(TransferProgress(completedBytes: completed, totalBytes: total))
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), total: total, progress: progress)
    }
}
