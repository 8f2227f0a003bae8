import Courier
import Foundation
#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

/// A publisher that runs an async operation when demand arrives, publishes its one value and
/// finishes — or fails with ``APIError``. Cancelling the subscription cancels the task, which
/// cancels the exchange.
struct TaskPublisher<Output: Sendable>: Publisher {
    typealias Failure = APIError

    let operation: @Sendable () async throws -> Output

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == APIError {
        let subscription = TaskSubscription(subscriber: subscriber, operation: operation)
        subscriber.receive(subscription: subscription)
    }
}

/// The subscription behind ``TaskPublisher``.
///
/// `@unchecked Sendable`: the subscriber (not `Sendable` in Combine's API) and the task are only
/// touched under `lock`, and the subscriber is taken out before it is called, so it is called
/// at most once for the value and once for the completion, never concurrently.
final class TaskSubscription<S: Subscriber>: Subscription, @unchecked Sendable where S.Failure == APIError, S.Input: Sendable {  // safe: see above
    private let lock = NSLock()
    private var subscriber: S?
    private var task: Task<Void, Never>?
    private var started = false
    private let operation: @Sendable () async throws -> S.Input

    init(subscriber: S, operation: @escaping @Sendable () async throws -> S.Input) {
        self.subscriber = subscriber
        self.operation = operation
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        lock.lock()
        guard !started, subscriber != nil else { lock.unlock(); return }
        started = true
        let operation = self.operation
        let delivery = Delivery<S.Input> { [self] result in self.finish(with: result) }
        task = Task {
            let result: Result<S.Input, APIError>
            do {
                result = .success(try await operation())
            } catch let error as APIError {
                result = .failure(error)
            } catch is CancellationError {
                // After `cancel()` nobody is told (`finish` finds no subscriber); a cancellation
                // from below (a middleware, a stub) while the subscriber waits completes the
                // publisher, as the completion-handler API does, rather than leaving it silent.
                result = .failure(.cancelled(request: nil))
            } catch {
                result = .failure(.unknown(request: nil, underlying: error))
            }
            delivery.deliver(result)
        }
        lock.unlock()
    }

    func cancel() {
        lock.lock()
        subscriber = nil
        let task = self.task
        self.task = nil
        lock.unlock()
        task?.cancel()
    }

    fileprivate func finish(with result: Result<S.Input, APIError>) {
        lock.lock()
        let subscriber = self.subscriber
        self.subscriber = nil
        self.task = nil
        lock.unlock()
        guard let subscriber else { return }
        switch result {
        case .success(let value):
            _ = subscriber.receive(value)
            subscriber.receive(completion: .finished)
        case .failure(let error):
            subscriber.receive(completion: .failure(error))
        }
    }
}

/// Hands the result back to a subscription without the task capturing the subscriber's type.
///
/// `@unchecked Sendable`: `deliver` only calls ``TaskSubscription/finish(with:)``, which takes
/// the subscriber out under the subscription's lock before calling it.
final class Delivery<Input: Sendable>: @unchecked Sendable {  // safe: see above
    let deliver: (Result<Input, APIError>) -> Void
    init(_ deliver: @escaping (Result<Input, APIError>) -> Void) { self.deliver = deliver }
}
