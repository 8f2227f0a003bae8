import Foundation
import HTTPTypes

/// How old a stored response is and how long it stays fresh (RFC 9111 §4.2).
package struct CacheFreshness: Sendable, Equatable {
    /// How long the response stays fresh after it was generated, in seconds.
    package var lifetime: TimeInterval
    /// The response's current age, in seconds.
    package var age: TimeInterval
    /// Whether ``lifetime`` came from the heuristic (§4.2.2), not from the server.
    package var isHeuristic: Bool

    /// Whether the response is fresh now.
    package var isFresh: Bool { lifetime > age }
    /// How long ago it became stale, in seconds (zero while fresh).
    package var staleness: TimeInterval { max(0, age - lifetime) }

    /// Status codes a cache may give a heuristic lifetime (RFC 9110 §15.1).
    package static let heuristicallyCacheableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The freshness of `entry` at `now`.
    ///
    /// - Parameter maxHeuristicLifetime: the cap of the heuristic lifetime (10 % of the time
    ///   since `Last-Modified`, as RFC 9111 §4.2.2 suggests); zero turns heuristics off.
    package init(of entry: CachedHTTPResponse, cacheControl: CacheControl, now: Date, maxHeuristicLifetime: TimeInterval) {
        let fields = TimeFields(entry.response.headerFields)
        let dateValue = fields.date.flatMap { CacheFreshness.httpDate($0) }
        // §4.2.1
        var heuristic = false
        if cacheControl.maxAgeIsInvalid {
            lifetime = 0
        } else if let maxAge = cacheControl.maxAge {
            lifetime = TimeInterval(maxAge)
        } else if let expires = fields.expires {
            // An invalid Expires ("0", "-1") means "already expired" (§5.3).
            if let expiry = CacheFreshness.httpDate(expires), fields.expiresCount == 1 {
                lifetime = max(0, expiry.timeIntervalSince(dateValue ?? entry.responseDate))
            } else {
                lifetime = 0
            }
        } else if maxHeuristicLifetime > 0,
                  CacheFreshness.heuristicallyCacheableStatuses.contains(entry.response.status.code) || cacheControl.isPublic,
                  let lastModified = fields.lastModified.flatMap({ CacheFreshness.httpDate($0) }) {
            heuristic = true
            let sinceModified = (dateValue ?? entry.responseDate).timeIntervalSince(lastModified)
            lifetime = min(max(0, sinceModified / 10), maxHeuristicLifetime)
        } else {
            lifetime = 0
        }
        isHeuristic = heuristic
        // §4.2.3
        let ageValue = fields.age.flatMap { TimeInterval(CacheControl.deltaSeconds($0) ?? 0) } ?? 0
        let apparentAge = max(0, entry.responseDate.timeIntervalSince(dateValue ?? entry.responseDate))
        let responseDelay = max(0, entry.responseDate.timeIntervalSince(entry.requestDate))
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        let residentTime = max(0, now.timeIntervalSince(entry.responseDate))
        age = correctedInitialAge + residentTime
    }

    /// `Date`, `Expires`, `Last-Modified` and `Age`, read in one pass over the fields: a lookup
    /// by name walks them all, and freshness is computed at least twice per revalidation. Each
    /// value as `HTTPFields`' subscript gives it (repeated fields joined with ", ").
    private struct TimeFields {
        var date: String?
        var expires: String?
        var expiresCount = 0
        var lastModified: String?
        var age: String?

        init(_ fields: HTTPFields) {
            func joined(_ earlier: String?, _ value: String) -> String { earlier.map { $0 + ", " + value } ?? value }
            for field in fields {
                let name = field.name
                if name.isSame(as: .date) {
                    date = joined(date, field.value)
                } else if name.isSame(as: .expires) {
                    expires = joined(expires, field.value)
                    expiresCount += 1
                } else if name.isSame(as: .lastModified) {
                    lastModified = joined(lastModified, field.value)
                } else if name.isSame(as: .age) {
                    age = joined(age, field.value)
                }
            }
        }
    }

    /// Reads an HTTP-date (RFC 9110 §5.6.7: IMF-fixdate, RFC 850 and asctime shapes).
    ///
    /// RFC 6265's lenient date algorithm, which Courier's cookie jar already has, reads all
    /// three shapes; it is reused rather than keeping a second parser.
    package static func httpDate(_ text: String) -> Date? {
        HTTPDate.parse(Substring(text))
    }
}
