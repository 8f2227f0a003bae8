import Foundation
import HTTPTypes
import OpenAPIRuntime

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
}
