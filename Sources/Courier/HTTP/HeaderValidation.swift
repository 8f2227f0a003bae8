import HTTPTypes

/// Checks header names and values that come in as strings, before they reach `HTTPFields`
/// (which would silently turn CR and LF into spaces).
public enum HeaderValidation {
    /// A validated field; throws ``InvalidHeaderError`` for a name that is not an RFC 9110 token
    /// or a value containing CR, LF or NUL. The value never appears in the error.
    public static func field(name: String, value: String) throws -> HTTPField {
        guard let fieldName = HTTPField.Name(name) else { throw invalidName(name) }
        try validate(value: value, name: name)
        return HTTPField(name: fieldName, value: value)
    }

    /// The error for a name that is not an RFC 9110 token (a name with a line break is not
    /// repeated in it).
    package static func invalidName(_ name: String) -> InvalidHeaderError {
        InvalidHeaderError(name: name.unicodeScalars.contains { $0 == "\r" || $0 == "\n" } ? "<name with line break>" : name,
                           reason: "the name is not a valid HTTP token")
    }

    /// Throws when `value` contains CR, LF or NUL.
    public static func validate(value: String, name: String) throws {
        for byte in value.utf8 where byte == 0x0D || byte == 0x0A || byte == 0x00 {
            throw InvalidHeaderError(name: name, reason: "the value contains CR, LF or NUL")
        }
    }
}
