import Foundation
import HTTPTypes

/// Reading a response's validators for resuming (RFC 9110 §8.8, §13.1.5): which one a resumed
/// request may carry in `If-Range`, and whether a later response still names the same
/// representation.
extension DownloadResumeToken.Validator {
    /// The validator to resume `head`'s representation with: its `ETag` when strong, else its
    /// `Last-Modified` when strong enough; `nil` when there is neither (a weak `ETag` alone, a
    /// `Last-Modified` too close to the response's `Date`, or no validator at all). RFC 9110
    /// §13.1.5: a client must not send a weak entity tag in `If-Range`, nor a date unless it
    /// has no entity tag and the date is strong (§8.8.2.2).
    init?(resuming head: HTTPResponse) {
        if let tag = head.headerFields[.eTag] {
            // A weak tag, or one that is not an entity tag at all, rules out the date too: the
            // server said the representation has a tag, and the date cannot vouch for bytes.
            guard Self.isStrongEntityTag(tag) else { return nil }
            self = .entityTag(tag)
            return
        }
        guard let modified = head.headerFields[.lastModified], let modifiedDate = HTTPDate.parse(Substring(modified)),
              let dated = head.headerFields[.date], let date = HTTPDate.parse(Substring(dated)),
              date.timeIntervalSince(modifiedDate) >= Self.lastModifiedMargin
        else { return nil }
        self = .lastModified(modified)
    }

    /// How much later than `Last-Modified` the `Date` must be for the date to be a strong
    /// validator: RFC 9110 §8.8.2.2 asks for at least one second and a reason to believe no
    /// clock skew hides a second change; RFC 7232 and 2616 said 60 seconds, which covers both.
    static let lastModifiedMargin: TimeInterval = 60

    /// Whether `head` (a `206` or a `416`) names the same representation as this validator,
    /// by the strong comparison (RFC 9110 §8.8.3.2): the same strong tag, or the same date.
    /// `nil` when `head` carries no validator of this kind at all.
    func matches(_ head: HTTPResponse) -> Bool? {
        switch self {
        case .entityTag(let tag):
            guard let other = head.headerFields[.eTag] else { return nil }
            return Self.isStrongEntityTag(other) && other == tag
        case .lastModified(let date):
            guard let other = head.headerFields[.lastModified] else {
                // A server that tags its answers now has changed how it names the representation.
                return head.headerFields[.eTag] == nil ? nil : false
            }
            if other == date { return true }
            // The same instant written another way is the same date.
            guard let mine = HTTPDate.parse(Substring(date)), let theirs = HTTPDate.parse(Substring(other)) else { return false }
            return mine == theirs
        }
    }

    /// `"…"` with no `W/` and no quote, control or space inside (RFC 9110 §8.8.3's `etagc`).
    static func isStrongEntityTag(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\""), bytes.count <= 1024 else { return false }
        return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }
    }
}
