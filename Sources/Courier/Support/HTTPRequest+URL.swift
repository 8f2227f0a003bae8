import HTTPTypes

extension HTTPRequest {
    /// `scheme://authority`, with `https` when the scheme is unset.
    package var originString: String { "\(scheme ?? "https")://\(authority ?? "")" }

    /// The absolute URL as text: the origin and the request target (`/` when unset).
    package var urlString: String { "\(scheme ?? "https")://\(authority ?? "")\(path ?? "/")" }
}
