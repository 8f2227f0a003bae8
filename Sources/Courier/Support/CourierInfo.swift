/// Facts about the library itself.
public enum CourierInfo {
    /// The library's version, sent in the default `User-Agent` header (`Courier/<version>`).
    public static let version = "0.1.0"

    /// The default `User-Agent` value: `Courier/<version>`.
    public static let userAgent = "Courier/\(version)"
}
