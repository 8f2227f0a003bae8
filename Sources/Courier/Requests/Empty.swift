/// The response of a request whose body does not matter (`204 No Content`, `HEAD`, a `DELETE`).
///
/// It decodes from an empty body or from any JSON, and encodes as `{}`.
public struct Empty: Codable, Sendable, Hashable {
    /// Creates an empty value.
    public init() {}
    /// Decodes from anything, ignoring it.
    public init(from decoder: any Decoder) throws {}
    /// Encodes as an empty JSON object.
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: NoKeys.self)
    }
    private enum NoKeys: CodingKey {}
}
