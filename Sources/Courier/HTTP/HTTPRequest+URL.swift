import HTTPTypes

extension HTTPRequest {
    /// `scheme://authority`, with `https` when the scheme is unset.
    package var originString: String { String(concatenating: [scheme ?? "https", "://", authority ?? ""]) }

    /// The absolute URL as text: the origin and the request target (`/` when unset).
    package var urlString: String { String(concatenating: [scheme ?? "https", "://", authority ?? "", path ?? "/"]) }

    /// ``urlString`` with the values of the query items `names` matches redacted.
    package func urlString(redactingQuery names: Redaction.QueryNames) -> String {
        String(concatenating: [scheme ?? "https", "://", authority ?? "", names.redact(target: path ?? "/")])
    }
}
