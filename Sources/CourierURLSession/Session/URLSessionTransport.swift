import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `Transport` over `URLSession`, on Apple platforms and on Linux
/// (FoundationNetworking).
///
/// ```swift
/// let client = APIClient(
///     configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
///     transport: URLSessionTransport()
/// )
/// ```
///
/// The transport keeps one session for its whole life, streams response bodies to Courier as
/// they arrive, refuses the session's own redirects (Courier follows them with its credential
/// rules), and cancels the task when the Swift task is cancelled, when the deadline passes, or
/// when Courier stops reading the body (size limit).
///
/// Each transport keeps its cookies to itself (``defaultConfiguration(sharingCookies:)``), and a
/// `401` with an HTTP authentication challenge (`WWW-Authenticate: Basic`) is returned at once,
/// not answered by the session.
///
/// Files (`.file`) are uploaded from disk with `uploadTask(with:fromFile:)`, whatever their
/// size; a multipart form with files is written to a file in ``temporaryDirectory`` and
/// uploaded the same way (the file is removed when the task ends, also on failure and
/// cancellation). Other bodies — bytes, JSON, forms, `.stream` — are sent from memory up to
/// ``maxRequestBodySize``; a larger one is written to a file in ``temporaryDirectory`` as it is
/// read and uploaded from there (no size limit; the upload starts once the body has ended — use
/// `AsyncHTTPClientTransport` to send a body while it is being produced). Upload progress
/// comes from `didSendBodyData`. On Apple platforms a response the caller reads at its own pace
/// (`bytes(for:)`, downloads, events) is paused while the reader lags; FoundationNetworking
/// cannot pause a transfer, so on Linux it is buffered as it arrives (see the article
/// *Transports and large transfers*). On Linux, libcurl
/// inflates compressed responses before Courier sees them, so the response size limit counts
/// decoded bytes but cannot bound libcurl's own buffer: prefer `AsyncHTTPClientTransport` for
/// untrusted servers.
public final class URLSessionTransport: Transport {
    /// The session requests go through.
    ///
    /// On Linux its delegate queue runs each block at once on FoundationNetworking's own work
    /// queue, which every URLSession in the process shares (that is what keeps a lagging
    /// response out of memory; see the article *Transports and large transfers*). Completion
    /// handlers of tasks you make on this session directly run there too: they must return
    /// quickly and must not wait or call URLSession — not even to start another task, which
    /// waits for that queue and would trap. For tasks of your own, use a session of your own.
    public let session: URLSession
    /// The largest request body sent from memory, in bytes (default 4 MiB). A larger body —
    /// bytes, JSON, a form or a `.stream` — is written to a temporary file as it is read and
    /// uploaded from disk, so memory stays bounded whatever the size. Files and multipart forms
    /// with files are always uploaded from disk.
    public let maxRequestBodySize: Int
    /// Where multipart forms with files and bodies larger than ``maxRequestBodySize`` are written
    /// before they are uploaded (the session can stream a file, not a sequence of parts or an
    /// async sequence). Each file is created owner-only and removed when its task ends; files a
    /// crashed process left there (`courier-upload-*`, this user's, over a day old) are removed
    /// in the background when a transport first uses the directory.
    public let temporaryDirectory: URL
    private let delegate: SessionDelegate
    private let delegateQueue: OperationQueue
    /// Ends each request at its deadline; the session's own timeout is a backstop.
    private let deadlines = DeadlineWatch()
    /// The session for requests whose client keeps a `CookieJar` (``RequestContext/usesCookieJar``):
    /// the same configuration without a cookie store, made on first use. A second session
    /// because FoundationNetworking ignores `URLRequest.httpShouldHandleCookies` — only the
    /// configuration's cookie settings count — so the jar could not otherwise be the only one
    /// to decide.
    private let cookielessSession = Locked<URLSession?>(nil)
    /// On Linux, the configuration's cookie storage, which the transport fills with the
    /// response's `Set-Cookie` fields itself (see ``init(configuration:maxRequestBodySize:temporaryDirectory:)``);
    /// `nil` on Apple platforms and when the configuration stores no cookies.
    private let cookieStorage: HTTPCookieStorage?
    /// The store the session adds cookies from (the configuration's, when it sets cookies on
    /// requests), read to tell a middleware that asked (`RequestContext.cookieWatches`: the
    /// HTTP cache) that a request went out with cookies it never saw.
    private let cookieSendingStorage: HTTPCookieStorage?
    /// The largest body delivered in one piece when the client collects it anyway; larger ones
    /// are streamed from this point on.
    static let wholeBodyBufferLimit = 256 * 1024

    /// Creates a transport with its own session built from `configuration`.
    public init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration(), maxRequestBodySize: Int = 4 * 1024 * 1024,
                temporaryDirectory: URL = FileManager.default.temporaryDirectory) {
        self.temporaryDirectory = temporaryDirectory
        TemporaryUploadSweep.start(in: temporaryDirectory)
        let delegate = SessionDelegate()
        let queue = URLSessionTransport.makeDelegateQueue(label: "courier.urlsession.delegate")
        self.delegate = delegate
        self.delegateQueue = queue
        var sessionConfiguration = configuration
        var cookieStorage: HTTPCookieStorage?
        #if canImport(FoundationNetworking)
        // FoundationNetworking, when its configuration accepts cookies, parses every header line
        // of every response for them — each through two of Foundation's `trimmingCharacters`,
        // a large share of a small request's cost (BENCHMARKS.md) — although the line is a `Set-Cookie` in a few responses at most. The
        // session is told to accept none, and the transport stores the `Set-Cookie` fields it
        // finds in the head in the same storage, as FoundationNetworking would have: cookies
        // keep working, and a response without one costs nothing.
        if configuration.httpCookieAcceptPolicy != .never, let storage = configuration.httpCookieStorage,
           let copy = configuration.copy() as? URLSessionConfiguration {
            copy.httpCookieAcceptPolicy = .never
            sessionConfiguration = copy
            cookieStorage = storage
        }
        #endif
        self.cookieStorage = cookieStorage
        self.cookieSendingStorage = configuration.httpShouldSetCookies ? configuration.httpCookieStorage : nil
        self.session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: queue)
        self.maxRequestBodySize = maxRequestBodySize
    }

    deinit {
        session.finishTasksAndInvalidate()
        cookielessSession.withLock { $0?.finishTasksAndInvalidate() }
    }

    /// The session that sends a request: ``session``, or for a client with a `CookieJar` the
    /// same configuration without cookie handling.
    private func session(for context: RequestContext) -> URLSession {
        guard context.usesCookieJar else { return session }
        return cookielessSession.withLock { existing in
            if let existing { return existing }
            let configuration: URLSessionConfiguration = session.configuration
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.httpCookieAcceptPolicy = .never
            let made = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
            existing = made
            return made
        }
    }

    /// A session configuration for Courier: no URL cache (responses are the server's), no
    /// credential storage (authentication is middleware's job), and a cookie storage of the
    /// transport's own, in memory.
    ///
    /// Each call returns a configuration with a new, empty cookie storage, so two transports —
    /// two tenants' clients in one server process — never see each other's cookies. Pass
    /// `sharingCookies: true` to use the process-wide `HTTPCookieStorage.shared` instead (an
    /// app whose web views and requests share a login).
    public static func defaultConfiguration(sharingCookies: Bool = false) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.urlCredentialStorage = nil
        // An ephemeral configuration's storage is a new in-memory one each time it is asked for.
        configuration.httpCookieStorage = sharingCookies ? HTTPCookieStorage.shared : URLSessionConfiguration.ephemeral.httpCookieStorage
        return configuration
    }

    /// The header fields this transport adds to a request that does not set them itself, so the
    /// session's own choices do not reach the wire:
    /// - `Accept-Language` with an empty value: the session adds the user's languages to every
    ///   request (FoundationNetworking and CFNetwork alike); Courier sends them only when asked
    ///   (`APIConfiguration.sendsPreferredLanguages`).
    /// - `Accept-Encoding: gzip, deflate`, on Linux: libcurl advertises every coding it was built
    ///   with (`br`, `zstd`…); the two every platform decodes are asked for, so what is
    ///   advertised is what is decoded.
    package static let addedHeaderFields: [(name: String, canonicalName: String, value: String)] = {
        var fields: [(name: String, canonicalName: String, value: String)] = []
        #if canImport(FoundationNetworking)
        fields.append(("Accept-Encoding", "accept-encoding", "gzip, deflate"))
        #endif
        fields.append(("Accept-Language", "accept-language", ""))
        return fields
    }()

    /// Requests this transport has started whose data task has not completed yet (for leak
    /// checks: it returns to zero once every request has finished or been cancelled).
    package var inFlightTaskCount: Int { delegate.inFlightCount }

    /// `request` as a `URLRequest` without its body: the URL, the method, the header fields
    /// (repeated names joined, the fields of ``addedHeaderFields`` added) and a session
    /// timeout that backs up the request's deadline. (`package`: the benchmark builds its
    /// experimental transports with it, so they put the very same request on the wire.)
    package static func urlRequest(for request: HTTPRequest, context: RequestContext) throws -> URLRequest {
        let urlString = request.urlString
        guard let url = URL(string: urlString) else {
            throw TransportError(.invalidRequest, "URLSession cannot represent the URL", requestMayHaveBeenSent: false)
        }
        var urlRequest = URLRequest(url: url)
        // GET is a new URLRequest's method; setting it anyway copies FoundationNetworking's
        // request storage.
        if request.method != .get { urlRequest.httpMethod = request.method.rawValue }
        if context.usesCookieJar { urlRequest.httpShouldHandleCookies = false }   // the client's CookieJar alone decides (see session(for:))
        // The session's own timer is a backstop; the transport's DeadlineWatch enforces the exact
        // deadline. FoundationNetworking reads `timeoutInterval` in whole seconds, rounded down
        // (0.7 s would time out at once), so there it is rounded up.
        let remaining = context.remainingTime.clampedToLongestWait.secondsValue
        #if canImport(FoundationNetworking)
        urlRequest.timeoutInterval = max(1, remaining.rounded(.up))
        #else
        urlRequest.timeoutInterval = max(0.001, remaining)
        #endif
        urlRequest.allHTTPHeaderFields = Self.headerDictionary(request.headerFields)
        return urlRequest
    }

    /// `fields` as the one dictionary `URLRequest` takes, with ``addedHeaderFields`` where
    /// `fields` has no field of that name.
    ///
    /// One dictionary assigned at once: `addValue(_:forHTTPHeaderField:)` searches the fields
    /// already set, case-insensitively, for every header (quadratic in the fields, and slow per
    /// comparison on Linux). Repeated names are joined under the name as first
    /// written, with ", " as `addValue` does — except `Cookie`, whose pairs are joined with "; "
    /// (RFC 6265 §5.4): swift-http-types splits a `Cookie` value into one field per cookie, and
    /// ", " would glue them into one cookie's value.
    static func headerDictionary(_ fields: HTTPFields) -> [String: String] {
        var dictionary = [String: String](minimumCapacity: fields.count + addedHeaderFields.count)
        func join(_ value: String, to name: String, cookie: Bool) {
            dictionary[name]?.append((cookie ? "; " : ", ") + value)
        }
        if fields.count <= 12 {
            // A request's few fields are compared pairwise (no name repeats in almost every
            // request, and then each field is one dictionary write).
            for index in fields.indices {
                let field = fields[index]
                if let earlier = fields[..<index].first(where: { $0.name.canonicalName == field.name.canonicalName }) {
                    join(field.value, to: earlier.name.rawName, cookie: field.name == .cookie)
                } else {
                    dictionary[field.name.rawName] = field.value
                }
            }
        } else {
            // Past a dozen, the name first written for each canonical name is looked up.
            var firstWritten: [String: String] = [:]
            for field in fields {
                if let name = firstWritten[field.name.canonicalName] {
                    join(field.value, to: name, cookie: field.name == .cookie)
                } else {
                    firstWritten[field.name.canonicalName] = field.name.rawName
                    dictionary[field.name.rawName] = field.value
                }
            }
        }
        for added in addedHeaderFields where !fields.contains(where: { $0.name.canonicalName == added.canonicalName }) {
            dictionary[added.name] = added.value
        }
        return dictionary
    }

    /// The upload plan of `body`, made before `deadline`. The session's and the transport's
    /// timers start with the task, after the body is read: a stream body that stops yielding
    /// (a stalled upstream) would otherwise keep the request waiting without end, also when its
    /// reader ignores cancellation (``UploadPlanRace``). Every body that is read is raced, whether
    /// it can be read once or more: a `.stream` body that may be read again can stall just the
    /// same. Bytes the client holds (``UploadDescription/heldBytes``) are not read, so not raced.
    static func plan(for body: HTTPBody?, description: UploadDescription?, maxInMemory: Int, temporaryDirectory: URL,
                     deadline: ContinuousClock.Instant, activity: UploadActivity? = nil) async throws -> UploadPlan {
        guard let body else { return .none }
        // Bytes the client holds (a JSON, `Data` or form body, passed on unchanged by the
        // middleware): nothing to read, nothing that can stall, so no race (two tasks and a
        // timer per request) and no idle watch; past the in-memory limit they are written to
        // the temporary file at once (FoundationNetworking copies an `httpBody` whole).
        if let held = description?.heldBytes {
            guard ContinuousClock.now < deadline else {
                throw TransportError(.timeout, "the request's deadline passed before its body was sent", requestMayHaveBeenSent: false)
            }
            if held.data.count <= maxInMemory { return .inMemory(held.data) }
            return .file(try UploadPlan.writeTemporaryFile(held.data, in: temporaryDirectory), temporary: true)
        }
        return try await UploadPlanRace.plan(before: deadline) {
            try await UploadPlan.make(for: body, description: description, maxInMemory: maxInMemory, temporaryDirectory: temporaryDirectory,
                                      activity: activity)
        }
    }

    /// The head of a URLSession response as swift-http-types' `HTTPResponse` (`package`: for the
    /// benchmark's experimental transports).
    package static func head(from response: URLResponse) throws(TransportError) -> HTTPResponse {
        try TaskHandler.head(from: response)
    }

    public func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        let urlRequest = try Self.urlRequest(for: request, context: context)
        // The session adds the store's cookies itself, out of every middleware's sight: the
        // cache, which cannot key them, is told and stores nothing of this exchange. Looked up
        // only when a middleware asked (a request the cache may store).
        if !context.cookieWatches.isEmpty, !context.usesCookieJar, let storage = cookieSendingStorage, let url = urlRequest.url,
           storage.cookies(for: url)?.isEmpty == false {
            for watch in context.cookieWatches { watch.transportAddedStoreCookies() }
        }
        let upload = context.bodyChannels.upload(of: body)
        upload?.progress?.transportWillSend()
        let plan = try await Self.plan(for: body, description: upload, maxInMemory: maxRequestBodySize,
                                       temporaryDirectory: temporaryDirectory, deadline: context.deadline, activity: context.bodyChannels.uploadActivity)
        // A body the caller reads at its own pace is received no faster than it is read.
        let streamsResponse = !context.collectsResponseBody && request.method != .head
        let taskSession = session(for: context)
        var cleanups: [@Sendable () -> Void] = []
        if case .file(let url, true) = plan { cleanups.append { try? FileManager.default.removeItem(at: url) } }
        let finishActions = cleanups
        let onFinish: (@Sendable () -> Void)? = finishActions.isEmpty ? nil : { @Sendable in for action in finishActions { action() } }
        // With an idle timeout the head is delivered at once, so the client can watch the body's pace.
        let bufferLimit = context.collectsResponseBody && context.idleTimeout == nil ? min(Self.wholeBodyBufferLimit, context.maxResponseSize) : nil
        let message = urlRequest
        let deadlines = self.deadlines
        let delegate = self.delegate
        let cookieStorage = context.usesCookieJar ? nil : self.cookieStorage.map { ($0, message.url) }
        let launch = TaskLaunch(deadlines: deadlines)
        // Makes the task and its handler, and resumes the task.
        @Sendable func start() {
            let task: URLSessionTask
            switch plan {
            case .none: task = taskSession.dataTask(with: message)
            case .inMemory(let data):
                var withBody = message
                withBody.httpBody = data
                task = taskSession.dataTask(with: withBody)
            case .file(let url, _): task = taskSession.uploadTask(with: message, fromFile: url)
            }
            var flow: ReceiveFlow?
            if streamsResponse { flow = ReceiveFlow.forTask(task) }
            // A download goes to its file as it arrives, each chunk written on the delegate queue
            // (FoundationNetworking cannot pause a transfer, so a body passed on to the client's
            // task would pile up in memory whenever that task waits for a thread). Through a data
            // task, not a download task: FoundationNetworking traps on a download task's redirect
            // that carries a body (it force-unwraps the data task it hands a data delegate), and
            // never removes a download task's own file when the download fails.
            let handler = TaskHandler(task: task, deadlines: deadlines, isHead: request.method == .head, bufferLimit: bufferLimit,
                                      progress: upload?.progress, flow: flow, sink: context.bodyChannels.responseSink,
                                      sinkStatuses: context.acceptableStatusCodes, spillDirectory: temporaryDirectory,
                                      maxStreamedBytes: context.bodyChannels.responseLimit, whole: context.bodyChannels.wholeResponse,
                                      uploadActivity: plan.sendsBody ? context.bodyChannels.uploadActivity : nil,
                                      cookieStorage: cookieStorage, onFinish: onFinish)
            delegate.register(handler, for: task)
            // The body goes out from here: each `didSendBodyData` is movement (a body read above,
            // into memory or its temporary file, reported each chunk it read).
            guard let continuation = launch.take() else {
                // The caller was answered while the session was busy: its deadline passed, or it
                // was cancelled. The task is never resumed.
                handler.discard()
                return
            }
            if plan.sendsBody { context.bodyChannels.uploadActivity?.begin() }
            handler.start(continuation: continuation, deadline: context.deadline)
            launch.started(handler)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                launch.begin(continuation, deadline: context.deadline)
                #if canImport(FoundationNetworking)
                // `dataTask(with:)` and `resume()` wait for the one queue every session of the
                // process shares (`workQueue.sync`), which a hostile head can keep busy for a
                // minute: made here they would hold a thread of the cooperative pool — on two
                // cores, every timer and task of the process — for as long.
                TaskLaunch.queue.async { start() }
                #else
                start()
                #endif
            }
        } onCancel: {
            launch.cancel()
        }
    }
}

// FoundationNetworking (Linux) sends a body larger than `maxRequestBodySize` from a file, and a
// server that cuts such an upload can crash the process there (a file read completing after
// the transfer ended unpauses a handle libcurl has let go: `try!` in `_EasyHandle._PauseState`).
// A resumable upload, which expects cuts, keeps each append within what is sent from memory —
// and within 1 MiB: the process grows by 8–10 times an in-memory body while the session sends
// it (`courier-bench --transfers`, 256 MiB resumable upload: appends of 4 MiB +34 MiB,
// 2 MiB +19 MiB, 1 MiB +10.5 MiB; the target is 16 MiB). Not below 64 KiB: a request per
// few bytes would be the cost of a `maxRequestBodySize` of 0. (A transport wrapped in another
// loses this: the wrapper is the client's transport.)
extension URLSessionTransport: PrefersBoundedRequestBodies {
    package var preferredLargestBody: Int { max(64 << 10, min(maxRequestBodySize, 1 << 20)) }
}
