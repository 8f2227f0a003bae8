import HTTPTypes

// swift-http-types' `HTTPFields` indexes its fields with 16-bit integers and traps (a
// `precondition`, in release builds too) on the append that would make its 65,535th field.
// Nothing a server sends may reach that trap: transports refuse a response head past
// `responseFieldLimit` (far below the capacity, so Courier's own few fields always fit after it),
// and every place in Courier that adds a field to a head it did not build appends only while
// there is room.
extension HTTPFields {
    /// The most fields an `HTTPFields` value can hold: appending one more traps.
    package static let capacity = 65_534

    /// The most header fields Courier accepts in a response head. A head with more is refused
    /// with a ``TransportError`` naming the limit (``TransportError/tooManyResponseFields(limit:)``)
    /// on every transport — a browser accepts about a hundred; 10,000 leaves room for any real
    /// API, and for the handful of fields Courier's middleware adds afterwards.
    package static let responseFieldLimit = 10_000

    /// Appends `field` unless the value is at ``capacity``; returns whether it did.
    @discardableResult
    package mutating func appendIfRoom(_ field: HTTPField) -> Bool {
        guard count < Self.capacity else { return false }
        append(field)
        return true
    }
}

/// A response head's fields built from what a transport received, refusing the head once it
/// holds more than ``HTTPFields/responseFieldLimit`` fields — counted after any splitting (a
/// folded `Set-Cookie` line becomes one field per cookie), so a few long lines cannot become
/// more fields than a head may have.
package struct ResponseFieldsBuilder {
    /// The fields so far.
    package private(set) var fields = HTTPFields()

    /// A builder expecting about `expected` fields (capped at the limit: the number comes from
    /// the server).
    package init(expecting expected: Int = 0) {
        fields.reserveCapacity(min(max(expected, 0), HTTPFields.responseFieldLimit))
    }

    /// Appends `field`; throws when the head would hold more than the limit.
    package mutating func append(_ field: HTTPField) throws(TransportError) {
        guard fields.count < HTTPFields.responseFieldLimit else {
            throw TransportError.tooManyResponseFields(limit: HTTPFields.responseFieldLimit)
        }
        fields.append(field)
    }
}

extension TransportError {
    /// The error for a response head with more than `limit` header fields: a network failure
    /// that names the limit, and one that is not retried (the same server sends the same head).
    package static func tooManyResponseFields(limit: Int) -> TransportError {
        TransportError(.other, "the response head has more than \(limit) header fields, Courier's limit for a response head")
    }

    /// Throws ``tooManyResponseFields(limit:)`` when `head` holds more fields than
    /// ``HTTPFields/responseFieldLimit``: the check every transport's answer passes (a
    /// transport of your own included) before any middleware sees it.
    @inline(__always)
    package static func checkFieldCount(of head: HTTPResponse) throws(TransportError) {
        if head.headerFields.count > HTTPFields.responseFieldLimit {
            throw tooManyResponseFields(limit: HTTPFields.responseFieldLimit)
        }
    }
}
