import Courier
@testable import CourierURLSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing

/// `TaskStateMachine` driven event by event, as `TaskHandler` drives it, with plain values for the
/// caller and the body's outlet and chosen instants for the clock: each event in each state
/// returns the action the handler must perform.
@Suite("URLSession task state machine")
struct TaskStateMachineTests {
    /// A caller waiting for the head, told apart by its number.
    struct Caller: Sendable, Equatable { let id: Int }
    /// A streamed body's outlet, told apart by its number.
    struct Outlet: Sendable, Equatable { let id: Int }
    typealias Machine = TaskStateMachine<Caller, Outlet>

    static let caller = Caller(id: 1)
    static let outlet = Outlet(id: 7)
    /// Some error of the download's file.
    struct DiskFull: Error {}

    static func machine(isHead: Bool = false, bufferLimit: Int? = nil, sinkStatuses: Set<Int> = [], pausesTransfer: Bool = false,
                        sink: ResponseBodySink? = nil, onFinish: (@Sendable () -> Void)? = nil) -> Machine {
        let configuration = Machine.Configuration(isHead: isHead, bufferLimit: bufferLimit, sinkStatuses: sinkStatuses,
                                                  pausesTransfer: pausesTransfer)
        return Machine(configuration: configuration, sink: sink, onFinish: onFinish)
    }

    /// A machine whose caller waits for the head.
    static func waiting(bufferLimit: Int? = nil, sinkStatuses: Set<Int> = [], pausesTransfer: Bool = false,
                        sink: ResponseBodySink? = nil) -> Machine {
        var machine = machine(bufferLimit: bufferLimit, sinkStatuses: sinkStatuses, pausesTransfer: pausesTransfer, sink: sink)
        _ = machine.start(caller)
        return machine
    }

    /// A machine whose head was delivered with a body streamed to ``outlet``.
    static func streaming(pausesTransfer: Bool = false, sinkStatuses: Set<Int> = [], sink: ResponseBodySink? = nil) -> Machine {
        var machine = waiting(sinkStatuses: sinkStatuses, pausesTransfer: pausesTransfer, sink: sink)
        _ = machine.receivedHead(head())
        _ = machine.streaming(to: outlet, buffered: 0)
        return machine
    }

    static func head(_ status: HTTPResponse.Status = .ok, _ fields: HTTPFields = [:]) -> HTTPResponse {
        HTTPResponse(status: status, headerFields: fields)
    }

    /// A download's sink; the machine only hands it back, so it writes nowhere.
    static func sink() -> ResponseBodySink {
        ResponseBodySink(handle: FileHandle.nullDevice, limit: nil, progress: nil)
    }

    // MARK: Starting and cancelling

    @Test("start while idle resumes the task, and the caller waits for the head")
    func startWhileIdle() {
        var machine = Self.machine()
        guard case .resumeTask = machine.start(Self.caller) else { Issue.record("expected resumeTask"); return }
        guard case .waitingForHead(let waiting) = machine.state else { Issue.record("expected waitingForHead, got \(machine.state)"); return }
        #expect(waiting == Self.caller)
    }

    @Test("a request cancelled before it starts is refused: its caller is handed back with onFinish, which is handed out once")
    func startAfterCancel() {
        let finished = Locked(0)
        var machine = Self.machine(onFinish: { finished.withLock { $0 += 1 } })
        guard case .cancelTask(let flowChange, let answer) = machine.cancel(reason: .cancelled) else { Issue.record("expected cancelTask"); return }
        #expect(flowChange == nil)
        #expect(answer == nil, "nobody waits yet")
        guard case .refuse(let refused, let onFinish) = machine.start(Self.caller) else { Issue.record("expected refuse"); return }
        #expect(refused == Self.caller)
        onFinish?()
        #expect(finished.withLock { $0 } == 1)
        #expect(machine.discard() == nil)
        #expect(machine.completed(error: URLError(.cancelled)).onFinish == nil)
    }

    @Test("cancel(.timeout) while waiting for the head answers the caller at once with a timeout; what follows is dropped")
    func timeoutWhileWaitingForTheHead() {
        var machine = Self.waiting()
        guard case .cancelTask(let flowChange, let answer?) = machine.cancel(reason: .timeout) else {
            Issue.record("expected cancelTask answering the caller")
            return
        }
        #expect(flowChange == nil)
        #expect(answer.caller == Self.caller)
        #expect((answer.error as? TransportError)?.kind == .timeout)
        guard case .finished = machine.state else { Issue.record("expected finished, got \(machine.state)"); return }
        guard case .none = machine.cancel(reason: .cancelled) else { Issue.record("a second cancellation must do nothing"); return }
        guard case .dropped = machine.receivedData(Data(count: 10), now: .now) else { Issue.record("expected dropped"); return }
        #expect(machine.streaming(to: Self.outlet, buffered: 0) == nil, "a head that arrives late finds nobody waiting")
        guard case .nothing = machine.completed(error: URLError(.cancelled)).end else { Issue.record("expected nothing to deliver"); return }
    }

    @Test("cancel(.cancelled) while the body is held back answers the caller at once with CancellationError")
    func cancelWhileBuffering() {
        var machine = Self.waiting(bufferLimit: 100)
        _ = machine.receivedHead(Self.head())
        guard case .cancelTask(_, let answer?) = machine.cancel(reason: .cancelled) else { Issue.record("expected cancelTask answering the caller"); return }
        #expect(answer.caller == Self.caller)
        #expect(answer.error is CancellationError)
    }

    @Test("any other reason cancels the task but leaves the caller to the task's end, which reports it")
    func otherReasonsWaitForTheEnd() {
        var machine = Self.waiting()
        guard case .cancelTask(_, let answer) = machine.cancel(reason: .unusableHead(message: "bad status")) else {
            Issue.record("expected cancelTask")
            return
        }
        #expect(answer == nil)
        guard case .waitingForHead = machine.state else { Issue.record("expected waitingForHead, got \(machine.state)"); return }
        guard case .answerFromTask(let caller, let error?) = machine.completed(error: URLError(.cancelled)).end else {
            Issue.record("expected the caller answered with an error")
            return
        }
        #expect(caller == Self.caller)
        #expect("\(error)".contains("bad status"))
    }

    @Test("a request that completed normally is not cancelled any more")
    func cancelAfterCompletion() {
        var machine = Self.streaming()
        _ = machine.completed(error: nil)
        #expect(machine.completedNormally)
        guard case .none = machine.cancel(reason: .timeout) else { Issue.record("expected none"); return }
        #expect(machine.cancelReason == nil)
    }

    @Test("a deadline is kept while the request runs and handed back at its end; one added after the end is removed at once")
    func deadlines() {
        let watch = DeadlineWatch()
        let token = watch.add(deadline: .now + .seconds(3600)) {}
        defer { watch.remove(token) }
        var running = Self.waiting()
        #expect(running.watchDeadline(token) == .keepWatching)
        #expect(running.completed(error: nil).stopWatching == token)

        var timedOut = Self.waiting()
        _ = timedOut.cancel(reason: .timeout)
        #expect(timedOut.watchDeadline(token) == .stopWatching)
        #expect(timedOut.completed(error: nil).stopWatching == nil)
    }

    @Test("a discarded task is finished, cancelled, and hands out onFinish once")
    func discard() {
        var machine = Self.machine(onFinish: {})
        #expect(machine.discard() != nil)
        #expect(machine.cancelReason == .cancelled)
        guard case .finished = machine.state else { Issue.record("expected finished, got \(machine.state)"); return }
        #expect(machine.discard() == nil)
    }
}
