import HTTPTypes

/// A request's header fields, checked as they are set: a value with CR, LF or NUL makes the
/// request fail when it is sent, as ``Request/header(_:_:)`` does.
///
/// It reads and writes like swift-http-types' `HTTPFields`, which ``Request/headers`` and
/// ``APIConfiguration/defaultHeaders`` used to be:
///
/// ```swift
/// var request = Request<[User]>(path: "/users")
/// request.headers[.accept] = "application/json"
/// request.headers[HTTPField.Name("X-Trace")!] = traceID   // CR or LF: refused when sent
/// request.headers["X-Tenant"] = tenant                     // a string name, checked too
/// ```
///
/// Why not `HTTPFields` itself: setting a value through `HTTPFields`' subscript turns CR, LF
/// and NUL into spaces, and nothing downstream can tell that happened — a header injected from
/// untrusted input would be sent mangled instead of refused. `RequestHeaders` checks the value
/// before it reaches `HTTPFields` and keeps the first problem, which is thrown as
/// ``InvalidHeaderError`` (``APIError/Kind/encodingFailed``) when the request is sent; the
/// value itself never appears in the error. A field appended as a ready-made `HTTPField` was
/// already cleaned by swift-http-types and is taken as it is.
public struct RequestHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, RequestHeadersConvertible {
    /// The fields that passed the checks, in the order they were set.
    public private(set) var fields: HTTPFields
    /// The first name or value that was refused, if any; ``headerFields()`` throws it.
    public private(set) var invalidHeader: InvalidHeaderError?

    /// No fields.
    public init() {
        fields = HTTPFields()
    }

    /// The given fields (already cleaned by swift-http-types, so taken as they are).
    public init(_ fields: HTTPFields) {
        self.fields = fields
    }

    /// Fields from a literal such as `[.accept: "application/json"]`, each value checked.
    public init(dictionaryLiteral elements: (HTTPField.Name, String)...) {
        fields = HTTPFields()
        for (name, value) in elements { append(name: name, value: value) }
    }

    /// The value of the field, or the values of repeated fields joined by commas (`; ` for
    /// `Cookie`); setting replaces every field of that name, `nil` removes them.
    public subscript(name: HTTPField.Name) -> String? {
        get { fields[name] }
        set {
            guard let newValue else {
                fields[name] = nil
                return
            }
            guard accepts(newValue, for: name.rawName) else { return }
            fields[name] = newValue
        }
    }

    /// The same, with the name as a string; a name that is not a valid HTTP token is refused
    /// like a bad value. Reading an invalid name gives `nil`.
    public subscript(name: String) -> String? {
        get { HTTPField.Name(name).flatMap { fields[$0] } }
        set {
            guard let fieldName = checkedName(name) else { return }
            self[fieldName] = newValue
        }
    }

    /// Every value of the field, one per field line; setting replaces them all.
    public subscript(values name: HTTPField.Name) -> [String] {
        get { fields[values: name] }
        set {
            guard newValue.allSatisfy({ accepts($0, for: name.rawName) }) else { return }
            fields[values: name] = newValue
        }
    }

    /// Adds a field line, keeping any existing ones of the same name; a value with CR, LF or NUL
    /// is refused.
    public mutating func append(name: HTTPField.Name, value: String) {
        guard accepts(value, for: name.rawName) else { return }
        fields.append(HTTPField(name: name, value: value))
    }

    /// Adds a field line whose name is a string; an invalid name or value is refused.
    public mutating func append(name: String, value: String) {
        guard let fieldName = checkedName(name) else { return }
        append(name: fieldName, value: value)
    }

    /// Adds a ready-made field (swift-http-types has already cleaned its value).
    public mutating func append(_ field: HTTPField) {
        fields.append(field)
    }

    /// The accepted fields, in order.
    public func makeIterator() -> HTTPFields.Iterator { fields.makeIterator() }

    /// Whether there is no field.
    public var isEmpty: Bool { fields.isEmpty }

    /// Whether a field of that name is present.
    public func contains(_ name: HTTPField.Name) -> Bool { fields.contains(name) }

    /// The fields to send; throws the first refused name or value as ``InvalidHeaderError``.
    public func headerFields() throws -> HTTPFields {
        if let invalidHeader { throw invalidHeader }
        return fields
    }

    private mutating func accepts(_ value: String, for name: String) -> Bool {
        do {
            try HeaderValidation.validate(value: value, name: name)
            return true
        } catch let error as InvalidHeaderError {
            if invalidHeader == nil { invalidHeader = error }
            return false
        } catch {
            return false
        }
    }

    private mutating func checkedName(_ name: String) -> HTTPField.Name? {
        if let fieldName = HTTPField.Name(name) { return fieldName }
        if invalidHeader == nil {
            invalidHeader = HeaderValidation.invalidName(name)
        }
        return nil
    }
}
