import Courier
import IssueReporting

/// The state behind one method of a `@Mockable` mock: the result or handler to answer with,
/// and the calls received. Sendable: everything is behind a lock.
///
/// Generated mocks expose it as `<method>Result`, `<method>Handler`, `<method>Calls` and
/// `<method>CallCount`:
///
/// ```swift
/// let mock = PostsServiceMock()
/// mock.postResult = .success(post)                  // or:
/// mock.postHandler = { call in Post(id: call.id, author: call.author) }
/// _ = try await mock.post(id: 7, author: "J")
/// #expect(mock.postCalls.map(\.id) == [7])
/// ```
///
/// A method with neither a result nor a handler throws ``MockUnimplementedError`` ("unimplemented:
/// PostsServiceMock.post(id:author:)") and, under XCTest or Swift Testing, also records a test
/// failure. It never traps.
public final class MockEndpoint<Call: Sendable, Output: Sendable>: Sendable {
    /// Answers a call.
    public typealias Handler = @Sendable (Call) async throws -> Output

    private struct State {
        var result: Result<Output, any Error>?
        var handler: Handler?
        var calls: [Call] = []
    }

    /// The method as `Mock.method(labels:)`, for messages.
    public let name: String
    private let state = Locked(State())

    /// Creates the state for the method called `name`.
    public init(_ name: String) {
        self.name = name
    }

    /// The result every call returns (or throws). Setting it clears the handler.
    public var result: Result<Output, any Error>? {
        get { state.withLock { $0.result } }
        set { state.withLock { $0.result = newValue; if newValue != nil { $0.handler = nil } } }
    }

    /// A closure that answers each call. Setting it clears the result.
    public var handler: Handler? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue; if newValue != nil { $0.result = nil } } }
    }

    /// The calls received, in order.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// Forgets the calls, the result and the handler.
    public func reset() { state.withLock { $0 = State() } }

    /// Records a call and answers it.
    public func call(_ call: Call, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                     line: UInt = #line, column: UInt = #column) async throws -> Output {
        let (result, handler) = state.withLock { state in
            state.calls.append(call)
            return (state.result, state.handler)
        }
        if let handler { return try await handler(call) }
        if let result { return try result.get() }
        let error = MockUnimplementedError(method: name)
        reportIssue(error.description, fileID: fileID, filePath: filePath, line: line, column: column)
        throw error
    }
}

extension MockEndpoint where Output == Void {
    /// Makes every call succeed (for methods that return nothing).
    public func succeed() { result = .success(()) }
}

/// Thrown by a mock method that has neither a result nor a handler.
public struct MockUnimplementedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The method, as `PostsServiceMock.post(id:author:)`.
    public var method: String
    /// Creates the error.
    public init(method: String) { self.method = method }
    public var description: String { "unimplemented: \(method)" }
}
