import Foundation

/// How an underlying error is written into Courier's own descriptions (``TransportError``,
/// ``AuthenticationError``, ``APIError``), which reach logs and traces.
///
/// A `URLError` is written by its code and message only: its own description prints its
/// `userInfo`, whose failing URL holds the request's query — secret values included.
package enum UnderlyingErrorText {
    /// `error` as it may appear in a description.
    package static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            return "URLError \(urlError.code.rawValue): \(urlError.localizedDescription)"
        }
        return "\(error)"
    }
}
