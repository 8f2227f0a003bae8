import Foundation
import HTTPTypes

/// The `Vary` field of a stored response: which request header fields select it (RFC 9111 §4.1).
package struct CacheVary: Sendable, Equatable {
    /// The most field names Courier follows in one `Vary`. A response that names more (a
    /// hostile or broken server listing a thousand) is not stored.
    package static let maxFieldNames = 32

    /// The lowercased field names, without duplicates, in order.
    package var names: [String]
    /// `Vary: *`: no later request can be served the response.
    package var matchesNothing: Bool

    /// Reads every `Vary` field of `fields`.
    package init(_ fields: HTTPFields) {
        var names: [String] = []
        var star = false
        for field in fields where field.name == .vary {
            for part in field.value.split(separator: ",") {
                let name = part.trimmingSpacesAndTabs().lowercased()
                if name == "*" { star = true } else if !name.isEmpty, !names.contains(name) { names.append(name) }
                if names.count > Self.maxFieldNames { break }
            }
        }
        self.names = names
        self.matchesNothing = star
    }

    /// Whether a response with this `Vary` can be stored: not `*`, at most
    /// ``maxFieldNames`` names, each a valid field name.
    package var isStorable: Bool {
        !matchesNothing && names.count <= Self.maxFieldNames && names.allSatisfy { HTTPField.Name($0) != nil }
    }

    /// The request's value for each name (its fields of that name joined with ", "); a field
    /// the request does not carry is absent. A credential field — `Authorization`, `Cookie`, an
    /// API key, whatever ``Redaction/isSensitive(header:extra:)`` calls secret with `sensitive`
    /// added — is kept as the digest of its value (``CacheDigest``): the stored selection still tells
    /// credentials apart, and a disk store never writes one (`Vary: Authorization, Cookie` is
    /// common: GitHub's API sends it).
    package func selectingValues(of request: HTTPRequest, sensitive: Set<HTTPField.Name>, digest: CacheDigest) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            guard let fieldName = HTTPField.Name(name) else { continue }
            guard let found = request.headerFields.value(of: fieldName) else { continue }
            values[name] = Redaction.isSensitive(header: fieldName, extra: sensitive) ? digest.labelled(found) : found
        }
        return values
    }

    /// Whether `request` selects a response stored with `stored` selecting values.
    package func matches(_ request: HTTPRequest, stored: [String: String], sensitive: Set<HTTPField.Name>, digest: CacheDigest) -> Bool {
        !matchesNothing && names.count <= Self.maxFieldNames && selectingValues(of: request, sensitive: sensitive, digest: digest) == stored
    }
}
