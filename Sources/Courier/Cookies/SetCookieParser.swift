import Foundation

/// Parses `Set-Cookie` header values the way RFC 6265 §5.2 tells user agents to: leniently
/// (unknown or malformed attributes are ignored, not fatal), in one pass over the text, and
/// with the size limits of RFC 6265bis so a hostile server cannot make the jar hold more than
/// it should.
///
/// Hand-written because nothing in the core's dependencies parses cookies: Foundation's
/// `HTTPCookie` lives in FoundationNetworking on Linux (which the core does not link), splits
/// headers on commas, and applies neither §5.2's attribute rules nor a public-suffix check.
package enum SetCookieParser {
    /// The most bytes a cookie's name and value may have together (RFC 6265bis §5.6, as
    /// browsers enforce); a longer cookie is ignored whole.
    package static let maxNameValueBytes = 4096
    /// The most bytes an attribute value may have (RFC 6265bis §5.6); a longer attribute is
    /// ignored.
    package static let maxAttributeValueBytes = 1024

    /// Parses one `Set-Cookie` value; `nil` when RFC 6265 says to ignore it (no `=`, an empty
    /// name, control characters, or a name and value longer than `maxNameValueBytes`).
    package static func parse(_ header: String, maxNameValueBytes: Int = maxNameValueBytes) -> SetCookie? {
        // §5.2: the name-value pair is everything before the first `;`, the attributes what
        // follows, split at every `;` — no quoted strings (HTTPParameters with `.none`).
        let text = Substring(header)
        let semicolon = text.utf8.firstIndex(of: UInt8(ascii: ";")) ?? text.endIndex
        var pair = HTTPParameters(text[..<semicolon], separator: ";", quoting: .none)
        guard let first = pair.next(), let value = first.value else { return nil }
        let name = first.name
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= maxNameValueBytes,
              !containsControlCharacters(name), !containsControlCharacters(value) else { return nil }
        var cookie = SetCookie(name: String(name), value: String(value))
        if semicolon < text.endIndex {
            for attribute in HTTPParameters(text[text.utf8.index(after: semicolon)...], separator: ";", quoting: .none) {
                apply(attribute, to: &cookie)
            }
        }
        return cookie
    }

    /// Splits a `Set-Cookie` value that holds several cookies joined with commas, as
    /// `URLSession` delivers them (`HTTPURLResponse` folds repeated fields into one). A comma
    /// starts a new cookie only when what follows it, up to the next `;` or `,`, is `name=…` with
    /// a name free of spaces — so the comma in `Expires=Wed, 21 Oct 2015 …` is not a split point,
    /// and neither is one inside a value (`a=x,y`). RFC 6265's cookie values cannot hold commas,
    /// so a conforming server's cookies split the same whichever transport delivered them.
    package static func splitFolded(_ header: String) -> [Substring] {
        let text = Substring(header)
        guard text.contains(",") else { return [text] }
        var parts: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        while let comma = text[index...].firstIndex(of: ",") {
            index = text.index(after: comma)
            if startsCookiePair(text[index...]) {
                parts.append(text[start..<comma].trimmingSpacesAndTabs())
                start = index
            }
        }
        parts.append(text[start...].trimmingSpacesAndTabs())
        return parts
    }

    /// Whether `text` begins (after spaces) with `token=`, before any `;` or `,`.
    private static func startsCookiePair(_ text: Substring) -> Bool {
        var sawName = false
        var sawSpaceAfterName = false
        for character in text {
            switch character {
            case "=": return sawName
            case ";", ",": return false
            case " ", "\t": if sawName { sawSpaceAfterName = true }
            default:
                if sawSpaceAfterName { return false }
                sawName = true
            }
        }
        return false
    }

    /// Applies one `name=value` or flag attribute (§5.2.1–§5.2.6 and RFC 6265bis' `SameSite`).
    /// The last occurrence of an attribute wins.
    private static func apply(_ attribute: HTTPParameters.Item, to cookie: inout SetCookie) {
        let name = attribute.name
        let value = attribute.value ?? ""
        // The longest attribute name is 8 bytes ("samesite"): anything longer is none of them,
        // and is not lowercased (a hostile name could be megabytes).
        guard name.utf8.count <= 8, value.utf8.count <= maxAttributeValueBytes else { return }
        switch name.lowercased() {
        case "expires":
            if let date = HTTPDate.parse(value) { cookie.expires = date }
        case "max-age":
            if let seconds = maxAge(value) { cookie.maxAge = seconds }
        case "domain":
            // An empty Domain is ignored (RFC 6265bis §5.6.3); a leading dot is dropped.
            var domain = value
            if domain.first == "." { domain = domain.dropFirst() }
            if !domain.isEmpty { cookie.domain = domain.lowercased() }
        case "path":
            cookie.path = value.first == "/" ? String(value) : nil
        case "secure":
            cookie.isSecure = true
        case "httponly":
            cookie.isHTTPOnly = true
        case "samesite":
            cookie.sameSite = Cookie.SameSite(attributeValue: value)
        default:
            break
        }
    }

    /// `Max-Age`'s value (§5.2.2): an optional `-` then digits only, else ignored. Saturates
    /// instead of overflowing.
    private static func maxAge(_ value: Substring) -> Int64? {
        var digits = value.utf8[...]
        var negative = false
        if digits.first == UInt8(ascii: "-") { negative = true; digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        var result: Int64 = 0
        for digit in digits {
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            if overflow1 || overflow2 { result = .max; break }
            result = sum
        }
        return negative ? -result : result
    }

    /// Whether `text` holds a control character other than tab (RFC 6265bis §5.6: such a
    /// cookie is ignored).
    private static func containsControlCharacters(_ text: Substring) -> Bool {
        text.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }
}
