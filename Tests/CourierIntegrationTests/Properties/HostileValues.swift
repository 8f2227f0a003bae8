import Courier
import CourierSigning
import Foundation
import HTTPTypes
import PropertyBased

/// Random hostile values for ``HostileInputPropertyTests``, drawn from a seeded generator so a
/// failing case is reproduced by its seed and index.
struct HostileValues {
    var rng: Xoshiro

    init(seed: UInt64) { rng = Xoshiro(seed: (seed, 0x9E37_79B9_7F4A_7C15, seed &* 31, 0xD1B5_4A32_D192_ED03)) }

    // MARK: Primitives

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }

    /// Strings that break naive code: empty, dot-segments, delimiters, CR/LF, NUL, bidi, very long,
    /// templates, URLs, percent signs, and random ASCII (controls included), Latin-1 and emoji.
    static let specials = [
        "", ".", "..", "../admin", "/", "//evil.example", "?", "#", "&", "=", "&=&", "%", "%zz", "%00", "+", " ", "\t",
        "\r\n", "a\r\nX-Injected: 1", "\u{0}", "\u{1B}[2J", "\u{7F}", "\u{85}", "\u{2028}", "\u{202E}abc", "\u{FEFF}",
        "{", "}", "{id}", "{+id}", "{id=}", "{=x}", "http://user:pw@127.0.0.1/", "https://[::1]:99999/x", "ftp://x", "javascript:alert(1)",
        "ünïcödé", "中文", "🚀🚀", "\u{E000}", "\u{10FFFF}", "e\u{301}", "null", "true", "-1", "0", "9223372036854775808",
        String(repeating: "a", count: 4096), String(repeating: "%", count: 300), String(repeating: "/..", count: 50),
    ]

    mutating func string() -> String {
        switch int(0...5) {
        case 0, 1: return pick(Self.specials)
        case 2: return Gen.ascii.string(of: 0...16).run(using: &rng)
        case 3: return Gen.latin1.string(of: 0...8).run(using: &rng)
        case 4: return Gen<UnicodeScalar>.unicodeScalar(in: "\u{1F300}"..."\u{1F6FF}").map(Character.init).string(of: 0...3).run(using: &rng)
        default: return pick(Self.specials) + Gen.ascii.string(of: 0...6).run(using: &rng) + pick(Self.specials)
        }
    }

    mutating func optionalString() -> String? { chance(15) ? nil : string() }

    mutating func data() -> Data {
        switch int(0...3) {
        case 0: return Data()
        case 1: return Data(string().utf8)
        case 2: return Data((0..<int(0...64)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        default: return Data(repeating: 0, count: int(0...70_000))
        }
    }

    mutating func duration() -> Duration {
        pick([
            .zero, .nanoseconds(1), .nanoseconds(-1), .seconds(-1), .milliseconds(int(1...2000)), .milliseconds(int(1...50)),
            .seconds(Int64.max), .seconds(Int64.min), .nanoseconds(Int64.max), .nanoseconds(Int64.min),
            .seconds(Int64(Int32.max)), .seconds(1e18),
            Duration(secondsComponent: Int64.max, attosecondsComponent: 999_999_999_999_999_999),
        ])
    }

    mutating func size() -> Int { pick([0, -1, Int.min, Int.max, 1, 10, 11, 200, int(0...1_000_000)]) }

    mutating func method() -> HTTPRequest.Method {
        if chance(10), let custom = HTTPRequest.Method(string()) { return custom }
        return pick([.get, .post, .put, .patch, .delete, .head, .options])
    }

    // MARK: Requests

    /// Paths on the test server (relative, absolute on its origin, or on a closed port), templates and junk.
    mutating func path(serverOrigin: String) -> String {
        switch int(0...9) {
        case 0: return "/echo/{p}"
        case 1: return "/echo/{+rest}/end"
        case 2: return "/echo/" + string()
        case 3: return string()
        case 4: return serverOrigin + "/echo/" + string()
        case 5: return "/status/" + pick(["200", "204", "304", "400", "404", "500", "503", string()])
        case 6: return "/echo?" + string() + "=" + string()
        case 7: return "/echo/{p}/{+rest}"
        case 8: return "/echo/{p=" + string() + "}"
        default: return "/echo"
        }
    }

    mutating func queryItems() -> [URLQueryItem] {
        (0..<int(0...4)).map { _ in URLQueryItem(name: string(), value: optionalString()) }
    }

    mutating func headerName() -> String {
        chance(50) ? pick(["X-Custom", "Content-Type", "Content-Length", "Host", "Transfer-Encoding", "Connection", "Authorization",
                           "Cookie", "Accept-Encoding", "Expect", "Upgrade", "TE", "Proxy-Authorization", ":path", ""]) : string()
    }

    mutating func headers() -> RequestHeaders {
        var fields = RequestHeaders()
        for _ in 0..<int(0...3) {
            if let name = HTTPField.Name(headerName()) { fields.append(name: name, value: string()) }
        }
        return fields
    }

    mutating func body() -> RequestBody? {
        switch int(0...6) {
        case 0, 1: return nil
        case 2: return .json(Dictionary((0..<int(0...4)).map { _ in (string(), string()) }, uniquingKeysWith: { $1 }))
        case 3: return .data(data(), contentType: pick(["application/json", "application/x-www-form-urlencoded", "text/plain", string()]))
        case 4: return .form((0..<int(0...4)).map { _ in (string(), string()) })
        case 5: return .file(URL(fileURLWithPath: "/nonexistent/" + UUID().uuidString), contentType: string())
        default:
            var form = MultipartForm()
            form.append(string(), name: string())
            return .multipart(form)
        }
    }

    /// Printable text without line breaks (half of the requests use it, so that many reach the server).
    mutating func mildString() -> String {
        chance(70) ? Gen.ascii.string(of: 1...12).run(using: &rng).filter { $0.isASCII && !$0.isNewline && $0.asciiValue! >= 0x20 }
                   : pick(["ünïcödé", "中文", "🚀", "a b", "a/b", "../x", "%", "&=", "?#", "+", "x"])
    }

    /// A request whose values are hostile but mostly sendable: it reaches the server.
    mutating func mildRequest(serverOrigin: String) -> Request<Data> {
        let value = mildString()
        var request = Request<Data>(
            method: method(), path: pick(["/echo/{p}", "/echo/{+rest}/end", "/echo", serverOrigin + "/echo/{p}", "/status/" + pick(["200", "204", "404", "503"])]),
            pathParameters: ["p": value.isEmpty ? "x" : value, "rest": value.isEmpty ? "x" : value],
            query: (0..<int(0...4)).map { _ in URLQueryItem(name: mildString(), value: chance(20) ? nil : mildString()) },
            body: chance(30) ? nil : body())
        for _ in 0..<int(0...2) { request = request.header(pick(["X-Custom", "Accept", "X-Trace", "User-Agent"]), mildString()) }
        return request
    }

    /// A random request for the test server; the response is read as raw bytes.
    mutating func request(serverOrigin: String) -> Request<Data> {
        if chance(50) { return mildRequest(serverOrigin: serverOrigin) }
        var request = Request<Data>(
            method: method(), path: path(serverOrigin: serverOrigin),
            pathParameters: Dictionary((0..<int(0...3)).map { _ in (pick(["p", "rest", "id", string()]), string()) }, uniquingKeysWith: { $1 }),
            query: queryItems(), headers: headers(), body: body())
        for _ in 0..<int(0...2) { request = request.header(headerName(), string()) }
        return request
    }

    // MARK: Options

    mutating func options() -> RequestOptions {
        RequestOptions(
            operationName: optionalString(),
            timeout: chance(20) ? nil : duration(),
            retry: pick([.automatic, .always, .never]),
            authentication: pick([.automatic, .none]),
            includeBaseParameters: chance(50),
            maxResponseSize: chance(20) ? nil : size(),
            acceptableStatusCodes: chance(50) ? nil : Set((0..<int(0...3)).map { _ in pick([200, 204, 404, 503, -1, 0, Int.max, Int.min]) }),
            redirectPolicy: nil
        )
    }

    // MARK: Middleware

    mutating func retryPolicy() -> RetryPolicy {
        RetryPolicy(
            maxAttempts: pick([Int.min, -1, 0, 1, 2, 3, 4, Int.max]),
            initialDelay: duration(), multiplier: pick([-Double.infinity, -1, 0, 1, 2, 1e308, .infinity, .nan]),
            maxDelay: duration(), jitter: pick([.none, .full, .equal]),
            retryableStatuses: Set((0..<int(0...3)).map { _ in pick([500, 503, 404, -1, Int.max]) }),
            idempotentMethods: Set((0..<int(0...3)).map { _ in method() }),
            maxBufferedResponseSize: size())
    }

    mutating func middleware() -> [any Middleware] {
        var stack: [any Middleware] = []
        if chance(60) {
            stack.append(BaseParametersMiddleware(queryItems(), placement: pick([.query, .body, .headers])))
        }
        if chance(60) {
            let credentials: AuthenticationMiddleware.Credentials
            switch int(0...4) {
            case 0: credentials = .bearer(string())
            case 1: credentials = .apiKey(string(), header: headerName())
            case 2: credentials = .apiKey(string(), queryItem: string())
            case 3: credentials = .basic(username: string(), password: string())
            default: credentials = .header(headerName(), value: string())
            }
            stack.append(AuthenticationMiddleware(credentials))
        }
        if chance(50) {
            if chance(50) {
                let placement: MD5ParameterSignature.Placement = chance(50) ? .query : .header(headerName())
                stack.append(SigningMiddleware(.md5Parameters(MD5ParameterSignature(
                    secret: string(), secretKeyName: string(), parameterName: string(),
                    excludedKeys: Set((0..<int(0...2)).map { _ in string() }), placement: placement))))
            } else {
                stack.append(SigningMiddleware(.hmacSHA256(HMACRequestSignature(
                    secret: data(), keyID: optionalString(), signatureHeader: headerName(), timestampHeader: chance(20) ? nil : headerName(),
                    keyIDHeader: headerName(), signedHeaders: (0..<int(0...3)).map { _ in headerName() }))))
            }
        }
        if chance(50) {
            var interceptors = InterceptorMiddleware()
            let matcher: InterceptorMiddleware.PathMatcher? = chance(30) ? nil : (chance(50) ? .init(string()) : try? .regex(matchingWholePath: string()))
            let name = headerName()
            let value = string()
            interceptors.beforeSend(for: matcher) { request, _ in
                var request = request
                if let field = HTTPField.Name(name) { request.headerFields[field] = value }
                return request
            }
            interceptors.onResponse(for: chance(50) ? nil : .init(string())) { response, body, _ in (response, body) }
            stack.append(interceptors)
        }
        if chance(50) {
            let low = pick([Int.min, -1, 0, 200, 300, 600])
            let high = pick([Int.min, -1, 0, 200, 300, 600, Int.max])
            stack.append(ValidationMiddleware(statusCodes: low <= high ? Array(low...min(high, low + 1000)) : [],
                                              contentTypes: (0..<int(0...2)).map { _ in pick(["application/json", string()]) }))
        }
        if chance(50) { stack.append(RetryMiddleware(policy: retryPolicy())) }
        return stack.shuffled(using: &rng)
    }

    // MARK: Cassettes

    /// A random JSON document shaped like a cassette (or not at all), with hostile statuses.
    mutating func cassetteJSON(url: String) -> Data {
        func message(_ values: inout HostileValues, request: Bool) -> Any {
            var object: [String: Any] = [:]
            if request {
                object["method"] = values.chance(80) ? "GET" : values.string()
                object["url"] = values.chance(80) ? url : values.string()
            } else if values.chance(97) {
                object["status"] = values.chance(95)
                    ? values.pick([200, 204, 404, 503, -1, 0, 42, 99, 100, 999, 1000, Int.max, Int.min, 1 << 40])
                    : values.pick(["200", 200.5, NSNull()] as [Any])
            }
            if values.chance(97) {
                object["headers"] = (0..<values.int(0...3)).map { _ -> Any in
                    values.chance(80) ? [values.headerName(), values.string()] : (0..<values.int(0...3)).map { _ in values.string() }
                }
            }
            if values.chance(97) { object["body"] = values.string() }
            if values.chance(50) { object["bodyEncoding"] = values.pick(["utf8", "base64", values.string()]) }
            return object
        }
        var document: [String: Any] = [:]
        if chance(97) { document["version"] = chance(95) ? pick([1, 1, 0, -1, Int.max]) : "1" }
        if chance(97) {
            var exchanges: [Any] = []
            for _ in 0..<int(0...3) {
                exchanges.append(chance(97) ? ["request": message(&self, request: true), "response": message(&self, request: false)] : string())
            }
            document["exchanges"] = exchanges
        }
        return (try? JSONSerialization.data(withJSONObject: document)) ?? Data("{".utf8)
    }
}
