import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Moving files and large bodies, with progress: uploads (``upload(_:progress:)``) and
/// downloads to a file (``download(_:to:progress:)``), which resume (see <doc:ResumableTransfers>).
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

    /// Sends a request and writes the response body to `destination` as it arrives, resuming
    /// after a dropped connection or a timeout as the client's ``RetryMiddleware`` allows.
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
    /// **Resuming.** When the connection drops (or the idle timeout fires) in the middle of the
    /// body and the client has a ``RetryMiddleware`` whose policy retries that failure, the
    /// download asks for the rest (`Range: bytes=<on disk>-`, with `If-Range` naming the
    /// representation) instead of starting over, and the progress goes on from there; a server
    /// that answers with the whole (changed) representation starts the file again. See
    /// <doc:ResumableTransfers>, and ``download(_:to:options:progress:)`` to keep a failed
    /// download's partial file and resume it later, even after a relaunch.
    ///
    /// **Size limit.** The client's ``APIConfiguration/maxResponseSize`` guards memory, and a
    /// download holds none, so it does not apply. A limit set on the request itself
    /// (``RequestOptions/maxResponseSize``) does: the download then fails with
    /// ``APIError/Kind/resourceTooLarge`` as soon as the declared length or the bytes
    /// received pass it, and the partial file is removed.
    ///
    /// The request's timeout covers the whole download, body and resumptions included: give
    /// large downloads a long one (`RequestOptions(timeout: .seconds(600))`).
    ///
    /// When the server announces the representation's SHA-256 (`Repr-Digest`, or a `200`'s
    /// `Content-Digest`; RFC 9530), the finished file is checked against it before it is moved
    /// into place; a mismatch fails with ``APIError/Kind/invalidResponse``.
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
        try await download(request, to: destination, options: DownloadOptions(keepsPartialFile: false), progress: progress)
    }

    /// Downloads to a file with the resumption and partial-file behaviour `options` give: by
    /// default, a download that fails (or whose task is cancelled, which pauses it) when it can
    /// be resumed keeps its partial file, and its error carries the token that resumes it
    /// (``APIError/resumeToken``, also handed to ``DownloadOptions/onCheckpoint``).
    ///
    /// ```swift
    /// var options = DownloadOptions()
    /// options.onCheckpoint = { token in saved.store(token) }     // kept across launches
    /// do {
    ///     try await client.download(GetArchive(), to: fileURL, options: options)
    /// } catch let error as APIError {
    ///     if let token = error.resumeToken {
    ///         try await client.download(GetArchive(), to: fileURL, resumingFrom: token)
    ///     }
    /// }
    /// ```
    ///
    /// Everything else is as in ``download(_:to:progress:)``.
    @discardableResult
    public func download<R: APIRequest>(
        _ request: R,
        to destination: URL,
        options: DownloadOptions,
        progress: TransferProgressHandler? = nil
    ) async throws -> DownloadResult {
        var download = try ResumableDownload(client: self, request: request, destination: destination, options: options, progress: progress)
        return try await download.run(from: nil)
    }

    /// Continues a download from `token` — taken from a failed or cancelled download
    /// (``APIError/resumeToken``, ``DownloadOptions/onCheckpoint``), in this process or an
    /// earlier one — into the same `destination`.
    ///
    /// The partial file the token names is checked first (its length and the SHA-256 of its
    /// last block); then the rest is asked for with `Range` and `If-Range`. Whatever does not
    /// match is not appended to: a partial file that is gone or changed, or a representation
    /// that changed on the server, starts the file again from zero
    /// (``DownloadResult/restarts`` counts it). A token for another URL throws
    /// ``APIError/Kind/encodingFailed`` with ``DownloadError/Reason/tokenMismatch``.
    ///
    /// ```swift
    /// let token = try JSONDecoder().decode(DownloadResumeToken.self, from: Data(contentsOf: tokenURL))
    /// let result = try await client.download(GetArchive(), to: fileURL, resumingFrom: token)
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request the token's download was made with (the same URL).
    ///   - destination: The destination the token's download was writing to.
    ///   - token: Where to continue.
    ///   - options: As for ``download(_:to:options:progress:)``.
    ///   - progress: Called as bytes are written; it starts at the bytes already on disk.
    /// - Throws: ``APIError`` (or `CancellationError`).
    @discardableResult
    public func download<R: APIRequest>(
        _ request: R,
        to destination: URL,
        resumingFrom token: DownloadResumeToken,
        options: DownloadOptions = DownloadOptions(),
        progress: TransferProgressHandler? = nil
    ) async throws -> DownloadResult {
        var download = try ResumableDownload(client: self, request: request, destination: destination, options: options, progress: progress)
        return try await download.run(from: token)
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
}

/// A download's file could not be created: where, and the file system's reason.
struct DownloadFileError: Error, Sendable, CustomStringConvertible {
    /// The destination asked for.
    var path: String
    /// The reason (`ENOENT`: the directory does not exist, `EACCES`: no permission, …).
    var code: POSIXErrorCode

    var description: String {
        "cannot create a file beside \(path): \(String(cString: strerror(code.rawValue)))"
    }
}
