import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Moving files and large bodies, with progress: uploads (``upload(_:progress:)``) and
/// downloads to a file (``download(_:to:progress:)``).
extension APIClient {
    /// Sends a request whose body reports its progress as the transport reads it, and decodes
    /// the response.
    ///
    /// Any body works (`.file`, `.stream`, `.multipart`, `.data`, `.json`, `.form`); files and
    /// the files of multipart forms are uploaded from disk, never loaded whole, on both
    /// transports.
    ///
    /// Progress is what the transport has sent: URLSession's `didSendBodyData` on
    /// `URLSessionTransport`; on `AsyncHTTPClientTransport`, the bytes the connection has taken
    /// (the next chunk is read only once it has taken the previous one). Another transport
    /// reports the bytes the body has handed to it. The total is known for everything but a
    /// `.stream` body of unknown length. A retried upload of a replayable body reports from
    /// zero again.
    ///
    /// ```swift
    /// let avatar = Request<Avatar>(method: .put, path: "/me/avatar", body: .file(imageURL, contentType: "image/png"))
    /// let saved = try await client.upload(avatar) { progress in
    ///     print(progress.fractionCompleted ?? 0)
    /// }
    /// ```
    public func upload<R: APIRequest>(_ request: R, progress: @escaping TransferProgressHandler) async throws -> R.Response {
        var modified = ModifiedRequest(request)
        if let body = modified.body {
            let builder = RequestBuilder(configuration: configuration)
            let encoded: HTTPBody
            let contentType: String?
            do {
                (encoded, contentType) = try builder.encode(body)
                // As `send` does for a form: a `Content-Type` of the request's own gets the
                // form's boundary (or is refused when it names another one), since the body
                // goes on as a stream, which the builder no longer knows to be a form.
                if case .multipart(let form) = body, let own = modified.headers[.contentType] {
                    modified.headers[.contentType] = try RequestBuilder.multipartContentType(own, boundary: form.boundary, formType: form.contentType)
                }
            } catch {
                throw APIError.encodingFailed(request: builder.summary(method: modified.method.rawValue, path: modified.path.text), underlying: error)
            }
            modified.body = .stream(encoded.reportingProgress(progress), contentType: contentType)
        }
        return try await send(modified)
    }

    /// Uploads a file from disk, never loaded whole, as the body of `request` (replacing any
    /// body it has).
    ///
    /// ```swift
    /// try await client.upload(Request<Void>(method: .put, path: "/files/report.pdf"),
    ///                         fromFile: reportURL, contentType: "application/pdf") { print($0) }
    /// ```
    public func upload<R: APIRequest>(
        _ request: R,
        fromFile fileURL: URL,
        contentType: String = "application/octet-stream",
        progress: @escaping TransferProgressHandler
    ) async throws -> R.Response {
        var modified = ModifiedRequest(request)
        modified.body = .file(fileURL, contentType: contentType)
        return try await upload(modified, progress: progress)
    }

    /// Uploads a stream of bytes as the body of `request` (replacing any body it has).
    ///
    /// Only a body whose `iterationBehavior` is `.multiple` can be sent again on a retry or a
    /// 307/308 redirect.
    public func upload<R: APIRequest>(
        _ request: R,
        from body: HTTPBody,
        contentType: String = "application/octet-stream",
        progress: @escaping TransferProgressHandler
    ) async throws -> R.Response {
        var modified = ModifiedRequest(request)
        modified.body = .stream(body, contentType: contentType)
        return try await upload(modified, progress: progress)
    }

    /// Sends a request and writes the response body to `destination` as it arrives.
    ///
    /// The body is never held in memory whole: each chunk is written to a temporary file next to
    /// `destination` (`.<name>.<8 hex digits>.courier-download`, one per download), which is
    /// moved into place once the body is complete, replacing any file already there. On failure
    /// or cancellation the partial file is removed and `destination` is left as it was. Two
    /// downloads to one destination at once each write their own file; the last to finish is
    /// the one left in place.
    ///
    /// ```swift
    /// let result = try await client.download(Request<Data>(path: "/exports/42.zip"), to: fileURL) { progress in
    ///     print(progress)          // "32768/1048576 bytes"
    /// }
    /// ```
    ///
    /// **Size limit.** The client's ``APIConfiguration/maxResponseSize`` guards memory, and a
    /// download holds none, so it does not apply. A limit set on the request itself
    /// (``RequestOptions/maxResponseSize``) does: the download then fails with
    /// ``APIError/Kind/resourceTooLarge`` as soon as the declared length or the bytes
    /// received pass it, and the partial file is removed.
    ///
    /// The request's timeout covers the whole exchange, body included: give large downloads a
    /// long one (`RequestOptions(timeout: .seconds(600))`).
    ///
    /// - Parameters:
    ///   - request: Any request; its response type is not used.
    ///   - destination: A file URL. Its directory must exist.
    ///   - progress: Called after each chunk is written, with the bytes so far and the total when known.
    /// - Throws: ``APIError`` (or `CancellationError`).
    @discardableResult
    public func download<R: APIRequest>(
        _ request: R,
        to destination: URL,
        progress: TransferProgressHandler? = nil
    ) async throws -> DownloadResult {
        // A name of this download's own: two downloads to one destination at once must not
        // write into, move or remove each other's partial file (O_EXCL: never one already there).
        let partial = destination.deletingLastPathComponent()
            .appendingPathComponent(Self.partialFileName(for: destination.lastPathComponent, tag: String(UUID().uuidString.prefix(8))))
        let fileManager = FileManager.default
        let descriptor = openNewFile(partial.path)
        guard descriptor >= 0 else {
            // The file system's reason (no such directory, no permission, …), for the destination.
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            let (prepared, _) = try prepare(request)
            throw APIError.unknown(request: summary(of: prepared), underlying: DownloadFileError(path: destination.path, code: code))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let sink = ResponseBodySink(handle: handle, limit: request.options.maxResponseSize.map(Int64.init), progress: progress)
        let opened: OpenedExchange
        do {
            opened = try await open(request, sink: sink)
        } catch {
            sink.close()
            try? handle.close()
            try? fileManager.removeItem(at: partial)
            // A transport writing to the sink may pass the limit before the client sees the head.
            if let exceeded = Self.sinkLimitExceeded(in: error) {
                let (prepared, _) = try prepare(request)
                throw APIError.resourceTooLarge(request: summary(of: prepared), limit: Int(exceeded.limit))
            }
            throw error
        }
        let (head, body, summary) = (opened.response, opened.body, opened.summary)
        let limit = opened.options.maxResponseSize
        let timeout = opened.timeout
        let total = BodyReading.expectedLength(of: body, head: head)
        sink.setTotal(total)
        var written: Int64 = 0
        do {
            do {
                if let limit, let total, total > Int64(limit) {
                    throw APIError.resourceTooLarge(request: summary, limit: limit)
                }
                // Through the sink, which drops it when a transport writing there has already
                // reported bytes (its queue and this task report at the same time).
                sink.report(TransferProgress(completedBytes: 0, totalBytes: total))
                if let body {
                    for try await chunk in body {
                        if chunk.isEmpty { continue }   // a transport writing to the sink says it is moving
                        written += Int64(chunk.count)
                        if let limit, written > Int64(limit) {
                            throw APIError.resourceTooLarge(request: summary, limit: limit)
                        }
                        try handle.write(contentsOf: chunk)
                        progress?(TransferProgress(completedBytes: written, totalBytes: total))
                    }
                }
                try Task.checkCancellation()
                sink.close()
                // What the transport wrote to the file itself (its chunks here were empty), or — a
                // bodiless answer it accepted, whose body a middleware then supplied — nothing.
                if sink.wasUsed { written += sink.bytesWritten }
                try handle.close()
            } catch {
                sink.close()
                try? handle.close()
                if let exceeded = Self.sinkLimitExceeded(in: error) {
                    throw APIError.resourceTooLarge(request: summary, limit: Int(exceeded.limit))
                }
                throw error
            }
            // rename(2) replaces a file already there in one step (the partial file sits beside
            // the destination, on its volume): two downloads finishing at once cannot both find
            // the place empty, and a reader never sees the destination missing.
            if rename(partial.path, destination.path) != 0 {
                let code = POSIXErrorCode(rawValue: errno) ?? .EIO
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path, NSUnderlyingErrorKey: POSIXError(code)])
            }
        } catch {
            try? FileManager.default.removeItem(at: partial)
            switch error {
            case is APIError, is CancellationError: throw error
            case is TransportError: throw Self.map(error, summary: summary, timeout: timeout)
            default:
                if Task.isCancelled { throw CancellationError() }
                if error is CocoaError { throw APIError.unknown(request: summary, underlying: error) }
                throw Self.map(error, summary: summary, timeout: timeout)
            }
        }
        return DownloadResult(fileURL: destination, response: head, byteCount: written, request: summary)
    }

    /// The name of the partial file beside the destination `name`: `.name.tag.courier-download`,
    /// with `name` cut (between two characters) so that the whole stays within the 255 bytes
    /// file systems allow for a name — any name the destination may have fits.
    static func partialFileName(for name: String, tag: String) -> String {
        let suffix = ".\(tag).courier-download"
        let room = 255 - 1 - suffix.utf8.count
        var kept = ""
        var used = 0
        for character in name {
            used += character.utf8.count
            if used > room { break }
            kept.append(character)
        }
        return ".\(kept)\(suffix)"
    }

    /// The sink's limit error inside `error` (a transport error, or the API error made of one).
    private static func sinkLimitExceeded(in error: any Error) -> BodyLimitExceeded? {
        var current: (any Error)? = error
        for _ in 0..<4 {
            switch current {
            case let exceeded as BodyLimitExceeded: return exceeded
            case let transport as TransportError: current = transport.underlying
            case let api as APIError: current = api.underlyingError
            default: return nil
            }
        }
        return nil
    }
}

/// A download's file could not be created: where, and the file system's reason.
struct DownloadFileError: Error, CustomStringConvertible {
    /// The destination asked for.
    var path: String
    /// The reason (`ENOENT`: the directory does not exist, `EACCES`: no permission, …).
    var code: POSIXErrorCode

    var description: String {
        "cannot create a file beside \(path): \(String(cString: strerror(code.rawValue)))"
    }
}

/// Creates the file at `path` for writing, failing if it exists (`open(2)`, which
/// ``APIClient``'s own `open` shadows inside the client); `-1` with `errno` set on failure.
private func openNewFile(_ path: String) -> Int32 {
    open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)   // less the umask, as any new file
}
