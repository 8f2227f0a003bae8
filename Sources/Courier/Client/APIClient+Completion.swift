import Foundation

/// A handle to a request started with a completion handler.
public struct Cancellable: Sendable {
    private let onCancel: @Sendable () -> Void

    /// Creates a handle that runs `onCancel` when cancelled.
    public init(_ onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }

    /// Cancels the request; its completion handler receives ``APIError/cancelled(request:)``.
    public func cancel() { onCancel() }
}

extension APIClient {
    /// Sends a request and calls `completion` with the result, for code that is not `async`.
    ///
    /// `completion` runs once, on no particular thread: hop to the main queue yourself to touch UI.
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
    public func send<R: APIRequest>(_ request: R, completion: @escaping @Sendable (Result<R.Response, APIError>) -> Void) -> Cancellable {
        let task = Task {
            do {
                completion(.success(try await self.send(request)))
            } catch let error as APIError {
                completion(.failure(error))
            } catch is CancellationError {
                completion(.failure(.cancelled(request: (try? self.prepare(request)).map { RequestSummary($0.0) })))
            } catch {
                completion(.failure(.unknown(request: nil, underlying: error)))
            }
        }
        return Cancellable { task.cancel() }
    }
}
