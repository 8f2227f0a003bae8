import OpenAPIRuntime

extension HTTPBody {
    /// A body with the same bytes, length and iteration behaviour that reports upload progress.
    ///
    /// Over `URLSessionTransport` and `AsyncHTTPClientTransport` the count is what the transport
    /// has sent (URLSession's `didSendBodyData`; AsyncHTTPClient's writes, which take the next
    /// chunk only once the connection has taken the previous one), so progress reaches 100 %
    /// only when the bytes have left. Any other transport reads the body as a stream, and the
    /// count is then the bytes handed to it, after each chunk.
    ///
    /// A body that can be iterated more than once (a file, bytes in memory) starts counting from
    /// zero again on each iteration, so a retried upload reports its progress afresh. Courier's
    /// own middleware that read the body before it is sent (signing, debug logging) read it
    /// without counting; a middleware of yours that reads it counts as a reader. A file or
    /// multipart body built by Courier stays one the transport can send from disk.
    ///
    /// ```swift
    /// let body = HTTPBody(data).reportingProgress { print($0) }
    /// ```
    public func reportingProgress(_ progress: @escaping TransferProgressHandler) -> HTTPBody {
        let total: Int64?
        if case .known(let length) = self.length { total = length } else { total = nil }
        return reportingProgress(to: UploadProgressReporter(total: total, handler: progress))
    }

    /// This body, counted by `reporter` as ``reportingProgress(_:)`` counts it.
    package func reportingProgress(to reporter: UploadProgressReporter) -> HTTPBody {
        let wrapped = HTTPBody(
            ProgressReportingSequence(base: self, reporter: reporter),
            length: self.length,
            iterationBehavior: self.iterationBehavior
        )
        let description = uploadDescription
        return .registered(wrapped, as: UploadDescription(source: description?.source, progress: reporter, uncounted: self,
                                                          heldBytes: description?.heldBytes))
    }
}

/// The chunks of a body, counted as they pass.
struct ProgressReportingSequence: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let base: HTTPBody
    let reporter: UploadProgressReporter

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        let reporter: UploadProgressReporter

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard let chunk = try await base.next() else { return nil }
            reporter.handedOver(chunk.count)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        reporter.iterationStarted()
        return AsyncIterator(base: base.makeAsyncIterator(), reporter: reporter)
    }
}
