/// A request's path, written as a string literal, in which every interpolated value is
/// percent-encoded as **one path segment**.
///
/// ```swift
/// struct GetUser: APIRequest {
///     typealias Response = User
///     let id: String
///     var path: RequestPath { "/users/\(id)" }   // id "../admin?x=1" → /users/..%2Fadmin%3Fx%3D1
/// }
/// ```
///
/// The literal parts are kept as written (they may hold `{name}` templates filled from
/// ``APIRequest/pathParameters``, a `?query`, or be an absolute URL). An interpolated value has
/// everything but RFC 3986 unreserved characters encoded, so `/`, `?`, `#`, `%` and `&` cannot
/// climb the path or leak into the query. A value that is empty, `.` or `..` makes the request
/// fail with an ``APIError`` of kind ``APIError/Kind/encodingFailed`` before anything is sent.
///
/// To splice text you built yourself (a path you trust, or a next-page link), write
/// `"\(raw: text)"` or use ``init(verbatim:)``.
///
/// A path declared as `String` still compiles (and is sent as written), with a deprecation
/// warning: a `String` cannot tell an interpolated value from the literal around it.
public struct RequestPath: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    ExpressibleByStringInterpolation {
    /// The path as it will be resolved: literal parts as written, interpolated values encoded.
    public private(set) var text: String
    /// Why an interpolated value could not be used, if one could not.
    public private(set) var error: PathEncodingError?
    /// The route template, when it is known: the literal parts with `{}` for each interpolated
    /// value (`/users/{}/posts`), or a path with `{name}` templates. Tracing and metrics name
    /// requests by it (OpenTelemetry's `url.template`), so it never holds a value.
    public private(set) var template: String?

    /// A path taken as written: nothing is encoded beyond what every path gets. Its template
    /// is known only when it has `{name}` templates (a text built at run time may hold ids).
    public init(verbatim text: String) {
        self.text = text
        self.error = nil
        self.template = text.containsByte(UInt8(ascii: "{")) ? text : nil
    }

    /// A path written as a plain literal; the literal is its template.
    public init(stringLiteral value: String) {
        self.text = value
        self.error = nil
        self.template = value
    }

    /// A path written with interpolations.
    public init(stringInterpolation: Interpolation) {
        self.text = stringInterpolation.text
        self.error = stringInterpolation.error
        self.template = stringInterpolation.template
    }

    /// The text, as ``text``.
    public var description: String { text }

    /// The text as a quoted, escaped string literal.
    public var debugDescription: String { text.debugDescription }

    /// Builds a ``RequestPath`` from a string literal with interpolations.
    public struct Interpolation: StringInterpolationProtocol, Sendable {
        var text = ""
        var error: PathEncodingError?
        var template: String? = ""

        /// Reserves room for the literal.
        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 8)
        }

        /// A literal part, kept as written.
        public mutating func appendLiteral(_ literal: String) {
            text += literal
            template? += literal
        }

        /// A value, percent-encoded as one path segment (`/`, `?`, `#`, `%`, `&` included); after
        /// a literal `?`, as one query value.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            let string = value.description
            template? += "{}"
            if text.utf8.contains(UInt8(ascii: "?")) {
                // After the path's own `?`: a query value, encoded whole (`&`, `=`, `#`, `+`
                // included); an empty value or `..` is harmless there.
                text += PercentEncoding.encode(string, allowing: .unreserved)
                return
            }
            do {
                text += try PathTemplate.segment(string, name: "interpolated value")
            } catch let failure as PathEncodingError {
                if error == nil { error = failure }
                text += "_"
            } catch {
                // `segment(_:name:)` throws only `PathEncodingError`.
            }
        }

        /// Text you built yourself, spliced as written (not encoded as a segment). The path has
        /// no known template then: the text may hold values.
        public mutating func appendInterpolation(raw text: String) {
            self.text += text
            template = nil
        }
    }
}
