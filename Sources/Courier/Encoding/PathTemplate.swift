/// Expands `{name}` templates in a path.
///
/// - `{name}`: the value of `name`, percent-encoded as one segment: everything but RFC 3986
///   unreserved characters is encoded, so `/`, `?`, `#` and `%` stay inside the segment. A value
///   that is exactly `.` or `..` is refused (servers would resolve it as a dot-segment).
/// - `{+name}`: the value inserted as a sub-path on purpose (`/` kept; characters that are not
///   allowed in a path are still encoded; `.`/`..` segments refused).
/// - `{name=default}` or `{name="John Smith"}`: the default when `name` has no value.
///
/// An empty value (given, or an empty default) is refused, naming the parameter: it would drop
/// the segment, so `DELETE /users/{id}` would become `DELETE /users/`.
package enum PathTemplate {
    /// The path with its templates replaced by their encoded values.
    package static func expand(_ template: String, with parameters: [String: String]) throws -> String {
        guard template.containsByte(UInt8(ascii: "{")) else {
            return PercentEncoding.encode(template, allowing: .path)
        }
        var out = ""
        out.reserveCapacity(template.utf8.count + 16)
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += PercentEncoding.encode(String(rest[..<open]), allowing: .path)
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw PathEncodingError(reason: "unclosed '{' in path template '\(template)'")
            }
            var spec = rest[rest.index(after: open)..<close]
            let raw = spec.first == "+"
            if raw { spec = spec.dropFirst() }
            var name = spec
            var fallback: String?
            if let eq = spec.firstIndex(of: "=") {
                name = spec[..<eq]
                var value = spec[spec.index(after: eq)...]
                if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
                fallback = String(value)
            }
            let key = String(name).trimmingSpaces
            guard let value = parameters[key] ?? fallback else {
                throw PathEncodingError(reason: "path parameter '\(key)' in '\(template)' has no value")
            }
            out += try raw ? subPath(value, name: key) : segment(value, name: key)
            rest = rest[rest.index(after: close)...]
        }
        out += PercentEncoding.encode(String(rest), allowing: .path)
        return out
    }

    /// One path segment: everything but unreserved characters percent-encoded.
    package static func segment(_ value: String, name: String = "value") throws -> String {
        if value.isEmpty { throw emptyValue(name) }
        if value == "." || value == ".." {
            throw PathEncodingError(reason: "path parameter '\(name)' is '\(value)', which would change the path")
        }
        return PercentEncoding.encode(value, allowing: .unreserved)
    }

    /// A sub-path: `/` kept, other characters not allowed in a path encoded, dot-segments refused.
    package static func subPath(_ value: String, name: String = "value") throws -> String {
        if value.isEmpty { throw emptyValue(name) }
        for part in value.split(separator: "/", omittingEmptySubsequences: false) where part == "." || part == ".." {
            throw PathEncodingError(reason: "path parameter '\(name)' contains a '\(part)' segment")
        }
        return PercentEncoding.encode(value, allowing: .init(extra: "!$&'()*+,;=:@/"))
    }

    private static func emptyValue(_ name: String) -> PathEncodingError {
        PathEncodingError(reason: "path parameter '\(name)' is empty, which would leave its segment out of the path")
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
