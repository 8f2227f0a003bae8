import Foundation
import HTTPTypes

/// Validators (`ETag`, `If-None-Match` and friends): how the cache compares them, and when the
/// caller's own leave the cache out of the way.
extension CachingMiddleware {
    /// RFC 9110 §8.8.3.2's weak comparison: the tags match once a `W/` prefix is set aside
    /// (servers that compress a response often mark its tag weak on the `200` and not on the
    /// `304`, or the other way round).
    static func weaklyEqual(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b else { return false }
        func opaque(_ tag: String) -> Substring {
            let trimmed = tag.trimmingSpacesAndTabs()
            return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
        }
        return opaque(a) == opaque(b)
    }

    /// Whether the caller validates by itself (`If-None-Match` and friends) or asks for a range:
    /// the cache stays out of the way.
    static func isCallersOwnValidation(_ request: HTTPRequest) -> Bool {
        // One pass over the (few) request fields rather than six lookups by name.
        request.headerFields.contains { field in callersOwnValidationFields.contains { $0 == field.name } }
    }

    private static let callersOwnValidationFields: [HTTPField.Name] = [.ifNoneMatch, .ifModifiedSince, .ifMatch, .ifUnmodifiedSince, .range, .ifRange]
}
