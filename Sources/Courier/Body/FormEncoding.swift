/// Writes `application/x-www-form-urlencoded` bodies as the WHATWG URL standard does: space as
/// `+`, everything but `*-._` and alphanumerics percent-encoded.
package enum FormEncoding {
    private static let allowed = PercentEncoding.Allowed(extra: "*")

    /// `name=Ada+Lovelace&lang=en` for the given pairs, in order.
    package static func encode(_ pairs: [(String, String)]) -> String {
        var out = ""
        for (name, value) in pairs {
            if !out.isEmpty { out += "&" }
            out += PercentEncoding.encode(name, allowing: allowed, spaceAsPlus: true)
            out += "="
            out += PercentEncoding.encode(value, allowing: allowed, spaceAsPlus: true)
        }
        return out
    }
}
