import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Logs every exchange with swift-log, secrets redacted.
///
/// ```swift
/// LoggingMiddleware(logger: logger)                            // one line per exchange
/// LoggingMiddleware(logger: logger, style: .verbose)           // a readable transcript for apps
/// LoggingMiddleware(logger: logger, redactedHeaders: ["X-Signature"], redactedQueryItems: ["pub_sign"])
/// ```
///
/// - At `level` (default `.debug`, as swift-log asks of libraries), one line per exchange when it
///   ends (the body read, failed or dropped; at once when the transport already holds the body
///   whole — a collected answer, a cache hit — and no body prefix is logged):
///   `GET https://api.example.com/v1/users?page=2 → 200 (41 ms, 1532 bytes)`, with metadata in
///   one dotted scheme: `http.request.method`, `url.full`, `http.response.status_code`,
///   `http.response.body.size`, `courier.duration_ms`, `courier.operation`, `courier.attempt`, and
///   `courier.cache` (`hit`, `stale`, `revalidated`, `miss`) when a ``CachingMiddleware`` inside
///   this one handled the response.
///   A failure without a response is one line at the same level — never a warning: the caller
///   gets the error and decides whether it matters. Pass `level: .info` to see every exchange
///   with a logger at the default level.
/// - Metadata of the task's logger (`Logger.current`, bound with swift-log's `withLogger`) is
///   added to every line, so an app's request id flows into Courier's lines.
/// - At `.debug`, the request and response headers and the first ``maxBodyBytes`` of each body.
///   A request body is shown only when it can be read again (it is never consumed); a response
///   body is shown as it streams by, never buffered.
/// - ``Style/verbose`` logs the whole transcript at `level`, with emoji markers (🚀 request,
///   ✅/❌ response), as many app API layers print it.
///
/// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, Courier's
/// ``Redaction/sensitiveHeaders``, any header or query item whose name looks secret (`token`,
/// `password`, `signature`, `api_key`…) and the names you configure are replaced by
/// `<redacted>`, and so are JSON members and form fields of logged bodies whose names look
/// secret or are configured (`"password": "<redacted>"`). The logger defaults to the client's
/// (``APIConfiguration/logger``); while that is the silent default, to the task's or the
/// process's (see ``init(logger:level:style:redactedHeaders:redactedQueryItems:maxBodyBytes:)``),
/// so `LoggingMiddleware(style: .verbose)` prints its transcript with no other setting.
public struct LoggingMiddleware: Middleware {
    /// How much is logged at the summary level.
    public struct Style: Sendable, Hashable {
        fileprivate enum Kind: Hashable { case standard, verbose }
        fileprivate let kind: Kind
        /// One line per exchange; headers and bodies at debug.
        public static let standard = Style(kind: .standard)
        /// A multi-line, emoji-marked transcript of each exchange at the summary level.
        public static let verbose = Style(kind: .verbose)
    }

    private let logger: Logger?
    private let level: Logger.Level
    private let style: Style
    private let redactedHeaders: Set<HTTPField.Name>
    private let redactedQueryItems: Set<String>
    /// `redactedQueryItems` and the canonical names of `redactedHeaders`: the names body
    /// redaction hides, built once rather than per request.
    private let redactedNames: Set<String>
    /// The most bytes of a body that are logged.
    public let maxBodyBytes: Int

    /// Creates the middleware.
    /// - Parameters:
    ///   - logger: where to log; `nil` uses the client's logger from the context
    ///     (``APIConfiguration/logger``) — or, while that is Courier's silent default, the task's
    ///     logger (`Logger.current`, bound with swift-log's `withLogger`), else a logger named
    ///     `courier` from the process's logging system (swift-log's console handler at `.info`
    ///     unless the app bootstrapped another).
    ///   - level: the level of the one-line summary (and of the verbose transcript); `nil` means
    ///     `.debug` for ``Style/standard`` (silent under a logger at swift-log's usual `.info`,
    ///     as a library's lines should be) and `.info` for ``Style/verbose`` (a transcript you
    ///     asked for is meant to be read).
    ///   - style: ``Style/standard`` or ``Style/verbose``.
    ///   - redactedHeaders: more header names to redact (API keys, signatures).
    ///   - redactedQueryItems: more query parameter names to redact.
    ///   - maxBodyBytes: how much of a body to show (default 1 KiB).
    public init(
        logger: Logger? = nil, level: Logger.Level? = nil, style: Style = .standard,
        redactedHeaders: Set<String> = [], redactedQueryItems: Set<String> = [], maxBodyBytes: Int = 1024
    ) {
        self.logger = logger
        self.level = level ?? (style == .verbose ? .info : .debug)
        self.style = style
        self.redactedHeaders = Set(redactedHeaders.compactMap { HTTPField.Name($0) })
        self.redactedQueryItems = redactedQueryItems
        self.redactedNames = redactedQueryItems.union(self.redactedHeaders.map(\.canonicalName))
        self.maxBodyBytes = max(0, maxBodyBytes)
    }

    /// Where a middleware created without a logger logs: the client's logger, unless it is the
    /// silent default — then the task's logger when one is bound, else a `courier` logger from
    /// the process's logging system. A middleware you added is a request to see its lines: with
    /// the silent default they would go nowhere, which is how a port of an app's request logger
    /// printed nothing. The client itself (no `LoggingMiddleware`) stays silent.
    package static func logger(for context: RequestContext) -> Logger {
        let client = context.logger
        guard client.handler is SwiftLogNoOpLogHandler else { return client }
        let task = Logger.current
        // swift-log's unbound task-local logger has an empty label.
        return task.label.isEmpty ? Logger(label: "courier") : task
    }

    /// Sends the request on and logs the exchange when its response body ends (or at once on failure).
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let logger = self.logger ?? Self.logger(for: context)
        let verbose = style == .verbose && logger.logLevel <= level
        let debug = logger.logLevel <= .debug
        guard verbose || debug || logger.logLevel <= level else { return try await next(request, body, context) }

        // The client's own secret names (APIConfiguration.sensitiveHeaders / sensitiveQueryNames) count too.
        let queryNames = context.sensitiveQueryNames.isEmpty ? redactedQueryItems : redactedQueryItems.union(context.sensitiveQueryNames)
        var redactedNames = self.redactedNames
        if !context.sensitiveQueryNames.isEmpty { redactedNames.formUnion(context.sensitiveQueryNames) }
        if !context.sensitiveHeaders.isEmpty { redactedNames.formUnion(context.sensitiveHeaders.map(\.canonicalName)) }
        var transcript = Transcript(url: RequestTarget.redactedURL(request, extraQueryNames: queryNames),
                                    method: request.method.rawValue, operation: context.operationName, attempt: context.attempt,
                                    redactedNames: redactedNames)
        // The task's logger (swift-log's `withLogger`) may carry an app's request id: pass it on.
        let ambient = Logger.current
        if !ambient.label.isEmpty { transcript.ambientMetadata = ambient.handler.metadata }
        let allRedactedHeaders = context.sensitiveHeaders.isEmpty ? redactedHeaders : redactedHeaders.union(context.sensitiveHeaders)
        let allQueryNames = verbose || debug ? Redaction.QueryNames.standard.adding(queryNames) : .standard
        if verbose || debug {
            transcript.requestHeaders = Redaction.redact(request.headerFields, extra: allRedactedHeaders, queryNames: allQueryNames)
            transcript.requestBody = await BodyReading.replayablePrefix(of: body, limit: maxBodyBytes)
            transcript.bodyIsStreamed = body != nil && transcript.requestBody == nil
            if debug && !verbose { logger.debug("\(transcript.requestLines(emoji: false))", metadata: transcript.metadata) }
        }
        let start = ContinuousClock.now
        let (response, responseBody): (HTTPResponse, HTTPBody?)
        do {
            (response, responseBody) = try await next(request, body, context)
        } catch {
            transcript.duration = start.duration(to: .now)
            transcript.error = error
            if verbose {
                logger.log(level: level, "\(transcript.verboseText())", metadata: transcript.metadata)
            } else {
                let figures = transcript.figures
                logger.log(level: level, Logger.Message(stringLiteral: transcript.summary(with: figures)), metadata: transcript.metadata(with: figures))
            }
            throw error
        }
        transcript.response = response
        // Headers are shown only at debug or in the verbose transcript; redacting them costs a
        // case-insensitive Foundation search per header, too costly for every response.
        if verbose || debug { transcript.responseHeaders = Redaction.redact(response.headerFields, extra: allRedactedHeaders, queryNames: allQueryNames) }
        let level = self.level
        let prefixLength = verbose || debug ? maxBodyBytes : 0
        let observed = ObservedBody.wrap(responseBody, prefixLength: prefixLength) { [transcript] outcome in
            let duration = start.duration(to: .now)
            if verbose || debug {
                var transcript = transcript
                transcript.duration = duration
                transcript.outcome = outcome
                if verbose {
                    logger.log(level: level, "\(transcript.verboseText())", metadata: transcript.metadata)
                    return
                }
                let figures = transcript.figures
                logger.log(level: level, Logger.Message(stringLiteral: transcript.summary(with: figures)), metadata: transcript.metadata(with: figures))
                logger.debug("\(transcript.responseLines(emoji: false))", metadata: transcript.metadata)
                return
            }
            // The summary alone, written from the captured transcript (a copy to set its end
            // retains and releases each of its fields). The line is the message as it is: an
            // interpolation would copy it into a new buffer.
            let figures = transcript.figures(duration: duration, outcome: outcome)
            logger.log(level: level, Logger.Message(stringLiteral: transcript.summary(with: figures)), metadata: transcript.metadata(with: figures))
        }
        return (response, observed)
    }
}
