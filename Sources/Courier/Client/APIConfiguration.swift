import Foundation
import HTTPTypes
import Logging

/// Everything an ``APIClient`` applies to every request.
///
/// ```swift
/// var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com/v1")!)
/// configuration.defaultHeaders[.init("X-App")!] = "demo"
/// configuration.baseParameters = [URLQueryItem(name: "app_version", value: "1.2")]
/// configuration.timeout = .seconds(15)
/// configuration.useSnakeCaseKeys()
/// ```
public struct APIConfiguration: Sendable {
    /// 50 MiB.
    public static let defaultMaxResponseSize = 50 * 1024 * 1024
    /// A logger that drops everything: the default, so a client logs nothing unless you set a
    /// logger or add a ``LoggingMiddleware`` (which then finds one: see its documentation).
    public static let silentLogger = Logger(label: "courier", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The URL that request paths are relative to. Its own path is kept: `https://h/api/v2` +
    /// `/users` is `https://h/api/v2/users`.
    public var baseURL: URL
    /// Headers sent with every request to the base URL's origin; a request's own headers win.
    /// Courier adds `Accept: application/json` and `User-Agent: Courier/<version>` unless set
    /// here. A request whose path is an absolute URL on another origin does not get them (only
    /// `Accept` and `User-Agent`), unless it sets ``RequestOptions/sendsCredentialsToOtherOrigins``.
    /// A value with CR, LF or NUL is refused: every request then fails with
    /// ``InvalidHeaderError`` (see ``RequestHeaders``).
    public var defaultHeaders: RequestHeaders
    /// Query items added to every request to the base URL's origin whose options do not opt out
    /// (``RequestOptions/includeBaseParameters``).
    public var baseParameters: [URLQueryItem]
    /// Whether requests to the base URL's origin carry `Accept-Language` with the user's
    /// preferred languages (`Locale.preferredLanguages`, up to six, with q-values). Default:
    /// `false` — the languages describe the user, and not every API needs to know them.
    public var sendsPreferredLanguages: Bool = false
    /// Header names whose values are secret, besides ``Redaction/sensitiveHeaders`` and the
    /// names that look secret (``Redaction/isSensitive(name:)``): redacted in logs and removed
    /// when a redirect leaves the origin.
    public var sensitiveHeaders: Set<HTTPField.Name> = []
    /// Query parameter names whose values are secret, besides
    /// ``Redaction/QueryNames/standard``: redacted in the URLs that errors (``RequestSummary``),
    /// ``LoggingMiddleware`` and ``APIClient/curlCommand(for:revealingSecrets:)`` show. An
    /// ``APIClient`` adds the name an ``AuthenticationMiddleware`` sends an API key under.
    public var sensitiveQueryNames: Set<String> = []
    /// The total time allowed for a request, redirects and body included. Default: 60 s.
    public var timeout: Duration
    /// How long a request may go without progress (its upload moving, its response head, the
    /// next bytes of its response body) before it fails with a timeout; `nil` (the default) for
    /// no idle limit. See ``RequestOptions/idleTimeout``.
    public var idleTimeout: Duration? = nil
    /// The largest response body accepted, in bytes, enforced while streaming. Default: 50 MiB.
    public var maxResponseSize: Int
    /// The `Content-Type` of a body given as bytes without a type of its own — a `Data`
    /// ``APIRequest/body``, a ``RequestBody/stream(_:contentType:)`` with none — when neither the
    /// request's headers nor ``defaultHeaders`` set one. Default: `application/octet-stream`, so a
    /// body never goes out untyped (a server that dispatches on `Content-Type` would otherwise
    /// see a form, or nothing). A port of code whose raw bodies are JSON sets
    /// `"application/json"`; `nil` sends such a body with no `Content-Type`, as you asked.
    public var rawBodyContentType: String? = "application/octet-stream"
    /// The encoder for `.json` bodies.
    public var encoder: JSONEncoder
    /// The decoder for `Decodable` responses.
    public var decoder: JSONDecoder
    /// Status codes that count as success; others throw ``APIError/Kind/httpError``.
    /// Default: 200..<300.
    public var acceptableStatusCodes: Set<Int>
    /// How redirects are followed.
    public var redirectPolicy: RedirectPolicy
    /// Where Courier logs (the default drops everything; a ``LoggingMiddleware`` without a
    /// logger of its own then logs to the task's or the process's logger).
    public var logger: Logger
    /// The client's cookie storage; `nil` (the default) leaves cookies to the transport
    /// (`URLSessionTransport` keeps its own, in memory; `AsyncHTTPClientTransport` none). With a
    /// jar, Courier stores and sends cookies itself, the same on every transport, on every
    /// redirect hop and retry; see ``CookieJar``. Give each client its own jar: clients that
    /// share one share their cookies.
    public var cookieJar: CookieJar?

    /// Creates a configuration; every argument but `baseURL` has a default.
    public init(
        baseURL: URL,
        defaultHeaders: RequestHeaders = [:],
        baseParameters: [URLQueryItem] = [],
        timeout: Duration = .seconds(60),
        maxResponseSize: Int = APIConfiguration.defaultMaxResponseSize,
        encoder: JSONEncoder = JSONEncoder(),
        decoder: JSONDecoder = JSONDecoder(),
        acceptableStatusCodes: some Sequence<Int> = 200..<300,
        redirectPolicy: RedirectPolicy = .default,
        logger: Logger = APIConfiguration.silentLogger
    ) {
        self.baseURL = baseURL
        self.defaultHeaders = defaultHeaders
        self.baseParameters = baseParameters
        self.timeout = timeout
        self.maxResponseSize = maxResponseSize
        self.encoder = encoder
        self.decoder = decoder
        self.acceptableStatusCodes = Set(acceptableStatusCodes)
        self.redirectPolicy = redirectPolicy
        self.logger = logger
    }

    /// Replaces the encoder and decoder with new ones that map `camelCase` properties to
    /// `snake_case` JSON keys and write and read dates as ISO 8601. Nothing of the ones they
    /// replace is kept: to keep an encoder or decoder you configured, set its
    /// `keyEncodingStrategy` / `keyDecodingStrategy` yourself instead.
    public mutating func useSnakeCaseKeys() {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        self.encoder = encoder
        self.decoder = decoder
    }

    /// The headers Courier sends when neither the configuration nor the request sets them.
    static func standardHeaders() -> HTTPFields {
        var fields = HTTPFields()
        fields[.accept] = "application/json"
        fields[.userAgent] = CourierInfo.userAgent
        return fields
    }

    /// `Accept-Language` with the user's preferred languages (``sendsPreferredLanguages``).
    static func preferredLanguagesHeader() -> HTTPFields {
        var fields = HTTPFields()
        let languages = Locale.preferredLanguages.prefix(6)
        if !languages.isEmpty {
            let value = languages.enumerated().map { index, language in
                let q = 1.0 - Double(index) * 0.1
                return index == 0 ? language : "\(language);q=\(String(format: "%.1f", q))"
            }.joined(separator: ", ")
            fields[.acceptLanguage] = value
        }
        return fields
    }
}
