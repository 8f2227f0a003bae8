import Dispatch
import Foundation

/// A handle to a request started with a completion handler: keep it to cancel the request.
///
/// (Named so that it does not collide with Combine's `Cancellable` protocol in files that import
/// both.)
public struct RequestHandle: Sendable {
    private let onCancel: @Sendable () -> Void

    /// Creates a handle that runs `onCancel` when cancelled. Mocks that complete at once can
    /// return `RequestHandle {}`.
    public init(_ onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }

    /// Cancels the request; its completion handler receives an ``APIError`` of kind
    /// ``APIError/Kind/cancelled``, unless the request had already finished.
    public func cancel() { onCancel() }
}

extension APIClient {
    /// The queue completion handlers run on when the caller names none: the main queue on
    /// Apple platforms (where UIKit and AppKit code expects it), a global queue elsewhere (a Linux
    /// process usually runs no main run loop, so main-queue work would never run).
    public static var defaultCompletionQueue: DispatchQueue {
        #if canImport(Darwin)
        return .main
        #else
        return .global()
        #endif
    }

    /// Sends a request and calls `completion` with the result, for code that is not `async`.
    ///
    /// `completion` runs exactly once, on `queue` — by default ``defaultCompletionQueue``: the
    /// main queue on Apple platforms, a global queue on Linux.
    ///
    /// ```swift
    /// let handle = client.send(GetUser(id: "42")) { result in
    ///     switch result {
    ///     case .success(let user): print(user.name)
    ///     case .failure(let error): print(error)       // APIError, one readable line
    ///     }
    /// }
    /// handle.cancel()
    /// ```
    @discardableResult
    public func send<R: APIRequest>(
        _ request: R,
        queue: DispatchQueue = APIClient.defaultCompletionQueue,
        completion: @escaping @Sendable (Result<R.Response, APIError>) -> Void
    ) -> RequestHandle {
        let task = Task {
            let result: Result<R.Response, APIError>
            do {
                result = .success(try await self.send(request))
            } catch let error as APIError {
                result = .failure(error)
            } catch is CancellationError {
                result = .failure(.cancelled(request: (try? self.prepare(request)).map { self.summary(of: $0.0) }))
            } catch {
                result = .failure(.unknown(request: nil, underlying: error))
            }
            queue.async { completion(result) }
        }
        return RequestHandle { task.cancel() }
    }
}
