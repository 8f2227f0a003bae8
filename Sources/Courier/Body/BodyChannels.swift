import OpenAPIRuntime

/// What the client and a transport tell each other about one exchange's bodies, beside the
/// `HTTPBody` values themselves: the one side channel between them (``RequestContext/bodyChannels``).
///
/// An `HTTPBody` is an opaque stream of chunks, and that is all a custom transport needs. A
/// transport that can do better reads the channels; each is optional, and ignoring one changes
/// how the bytes move, never which bytes arrive:
/// - **Upload**: ``upload(of:)`` says where a request body Courier built comes from (a file, a
///   multipart form's parts, bytes in memory) and who hears about its progress, so a transport
///   can upload a file from disk or hand held bytes over in one piece (see ``UploadDescription``).
/// - **Upload activity**: ``uploadActivity`` is told each time request-body bytes move, for the
///   idle timeout on uploads.
/// - **Download sink**: ``responseSink`` is where a transport without back-pressure may write a
///   download's body itself (see ``ResponseBodySink``).
/// - **Whole body**: ``wholeResponse`` is where a transport that holds a response body whole in
///   memory may leave its bytes, so the client takes them without iterating the body (see
///   ``WholeResponseBody``); ``responseLimit`` is the size past which a transport that must
///   keep a body it cannot pause may stop the transfer.
package struct BodyChannels: Sendable {
    /// Told each time the transport sends request-body bytes, for ``RequestContext/idleTimeout``
    /// on uploads (see ``UploadActivity``); `nil` without an idle timeout or a body.
    package var uploadActivity: UploadActivity?
    /// Where a transport without back-pressure may write a download's body itself; `nil`
    /// except for ``APIClient/download(_:to:progress:)``.
    package var responseSink: ResponseBodySink?
    /// Where a transport that holds the response body whole in memory may leave its bytes for
    /// the client; `nil` unless the client collects the body.
    package var wholeResponse: WholeResponseBody?
    /// The size past which the client fails the response body as a whole: the size limit of a
    /// body it collects, or the request's own limit for ``APIClient/bytes(for:)``; `nil` for
    /// other streams (an event stream's limit is per event).
    package var responseLimit: Int?

    /// Channels with nothing offered: the transport reads the bodies as streams.
    package init(uploadActivity: UploadActivity? = nil, responseSink: ResponseBodySink? = nil,
                 wholeResponse: WholeResponseBody? = nil, responseLimit: Int? = nil) {
        self.uploadActivity = uploadActivity
        self.responseSink = responseSink
        self.wholeResponse = wholeResponse
        self.responseLimit = responseLimit
    }

    /// What Courier knows about `body`, when Courier built it and no middleware replaced it.
    ///
    /// Looked up by the body's identity rather than carried here: bodies are made before the
    /// exchange's context exists (by the request builder, a multipart form, a progress
    /// wrapper), and a middleware that replaces the body must drop the description with it —
    /// which identity does by itself.
    package func upload(of body: HTTPBody?) -> UploadDescription? {
        body?.uploadDescription
    }
}
