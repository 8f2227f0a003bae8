import Foundation
import HTTPTypes

/// Uploads that survive a dropped connection: the IETF resumable upload protocol
/// (draft-ietf-httpbis-resumable-upload-15), over every transport. See <doc:ResumableTransfers>.
extension APIClient {
    /// Uploads a file so that a dropped connection, a timeout or a `5xx` costs only the bytes
    /// in flight: when the server offers resumable uploads, the file goes to an upload resource
    /// the server creates, in appends read from disk at the server's offset, and the upload
    /// resumes from that offset as the resumption policy allows.
    ///
    /// The exchanges (see <doc:ResumableTransfers>): `OPTIONS` on the request's URL (unless
    /// ``ResumableUploadOptions/discovery`` says the server is known to offer them); the
    /// request itself, empty, with `Upload-Complete: ?0` and `Upload-Length`, whose `201`
    /// names the upload resource in `Location`; then `PATCH` appends
    /// (`application/partial-upload`, `Upload-Offset`), the last with `Upload-Complete: ?1`,
    /// whose answer is decoded as the request's response. After a failure, `HEAD` asks the
    /// server for its offset.
    ///
    /// ```swift
    /// let video = try await client.upload(CreateVideo(), fromFile: movieURL, contentType: "video/mp4",
    ///                                     options: ResumableUploadOptions()) { progress in
    ///     print(progress)          // "33554432/268435456 bytes", going on from the offset after a drop
    /// }
    /// ```
    ///
    /// A server that does not offer them gets the file in one plain request, as
    /// ``upload(_:fromFile:contentType:progress:)`` sends it — or, with
    /// ``ResumableUploadOptions/Requirement/required``, the call fails before any byte of it
    /// is sent.
    ///
    /// The upload resource must be on the request's origin (scheme, host and port): the file
    /// is never sent anywhere else. The request's own fields (credentials, tracing) go with
    /// every exchange; those describing the representation (`Content-Type`,
    /// `Content-Disposition`) only with the creation. The request's timeout covers the whole
    /// upload, every resumption included: give a large upload a long one.
    ///
    /// - Parameters:
    ///   - request: The request that uploads the file (its method, URL and fields); its body
    ///     is replaced by the file.
    ///   - fileURL: A regular file; it must not change while it is uploaded.
    ///   - contentType: The file's media type, sent with the creation request.
    ///   - options: Requirement, discovery, resumption and checkpoints.
    ///   - progress: Called as bytes are sent, from the server's offset after a resumption.
    /// - Returns: The server's answer to the upload, decoded as the request says.
    /// - Throws: ``APIError`` (its ``APIError/underlyingError`` an ``UploadError`` when the
    ///   protocol failed), or `CancellationError` — which pauses the upload: its resource is
    ///   kept and ``ResumableUploadOptions/onCheckpoint`` gets the token to resume it.
    public func upload<R: APIRequest>(
        _ request: R,
        fromFile fileURL: URL,
        contentType: String = "application/octet-stream",
        options: ResumableUploadOptions,
        progress: TransferProgressHandler? = nil
    ) async throws -> R.Response {
        var upload = try ResumableUpload(client: self, request: request, fileURL: fileURL, contentType: contentType, options: options, progress: progress)
        return try await upload.run(from: nil)
    }

    /// Continues a resumable upload from `token` — from ``ResumableUploadOptions/onCheckpoint``
    /// or ``APIError/uploadResumeToken``, in this process or an earlier one — with the same
    /// request and file.
    ///
    /// The file is checked against the token first (its length, the SHA-256 of its first and
    /// last blocks); then the server is asked for its offset (`HEAD`) and the appends go on
    /// from there. A file that changed, or a token for another URL, throws
    /// ``APIError/Kind/encodingFailed`` with ``UploadError/Reason/tokenMismatch``; an upload
    /// the server no longer has starts again from zero (``ResumableUploadOptions/maxRestarts``).
    ///
    /// ```swift
    /// let token = try JSONDecoder().decode(UploadResumeToken.self, from: Data(contentsOf: tokenURL))
    /// let video = try await client.upload(CreateVideo(), fromFile: movieURL, contentType: "video/mp4", resumingFrom: token)
    /// ```
    public func upload<R: APIRequest>(
        _ request: R,
        fromFile fileURL: URL,
        contentType: String = "application/octet-stream",
        resumingFrom token: UploadResumeToken,
        options: ResumableUploadOptions = ResumableUploadOptions(),
        progress: TransferProgressHandler? = nil
    ) async throws -> R.Response {
        var upload = try ResumableUpload(client: self, request: request, fileURL: fileURL, contentType: contentType, options: options, progress: progress)
        return try await upload.run(from: token)
    }

    /// Gives up a paused or failed resumable upload: asks the server to delete its upload
    /// resource (`DELETE`), which releases what it holds.
    ///
    /// The upload resource must be on the origin of the client's ``APIConfiguration/baseURL``
    /// (a token is a file a hostile local user could edit: it never sends a request elsewhere).
    ///
    /// - Throws: ``APIError`` when the server refuses or cannot be reached, or the token's
    ///   resource is on another origin (``UploadError/Reason/tokenMismatch``); a `404` or
    ///   `410` (the upload is already gone) is not an error.
    public func cancelUpload(_ token: UploadResumeToken) async throws {
        let deletion = Request<Void>(method: .delete, path: RequestPath(verbatim: token.uploadResource), options: RequestOptions(retry: .never))
        let resource = try? CheckedURL(string: token.uploadResource)
        guard let resource, let base = try? CheckedURL(configuration.baseURL), resource.isSameOrigin(as: base) else {
            throw APIError.encodingFailed(request: builder.summary(method: "DELETE", path: "/"), underlying: UploadError(
                .tokenMismatch, detail: "the upload resource is not on \(configuration.baseURL.scheme ?? "")://\(configuration.baseURL.host ?? "")"))
        }
        do {
            _ = try await data(for: deletion)
        } catch let error as APIError where error.statusCode == 404 || error.statusCode == 410 {
            return
        }
    }
}
