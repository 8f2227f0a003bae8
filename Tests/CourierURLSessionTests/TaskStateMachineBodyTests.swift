import Courier
@testable import CourierURLSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing

/// `TaskStateMachine`'s response side: the head held back or streamed, chunks buffered, yielded,
/// paused for or written to a download's file, and how the task's completion ends the request.
/// The helpers are `TaskStateMachineTests`'.
@Suite("URLSession task state machine: the response")
struct TaskStateMachineBodyTests {
    typealias Machine = TaskStateMachineTests.Machine
    typealias Tests = TaskStateMachineTests
    static let caller = TaskStateMachineTests.caller
    static let outlet = TaskStateMachineTests.outlet

    // MARK: The head

    @Test("with a buffer limit the head is held back with its body; without one it is streamed from the head on")
    func headWhileWaiting() {
        var buffered = Tests.waiting(bufferLimit: 100)
        let head = Tests.head(.ok, [.contentLength: "100"])
        guard case .buffer(let sinkStart) = buffered.receivedHead(head) else { Issue.record("expected buffer"); return }
        #expect(sinkStart == nil)
        guard case .buffering(let caller, let held, let bytes) = buffered.state else { Issue.record("expected buffering, got \(buffered.state)"); return }
        #expect(caller == Self.caller && held == head && bytes.isEmpty)

        var streamed = Tests.waiting()
        guard case .stream(nil) = streamed.receivedHead(head) else { Issue.record("expected stream"); return }
        guard case .waitingForHead = streamed.state else { Issue.record("the caller waits until the outlet is open"); return }
        #expect(streamed.streaming(to: Self.outlet, buffered: 0) == Self.caller)
        guard case .streaming(let outlet) = streamed.state else { Issue.record("expected streaming, got \(streamed.state)"); return }
        #expect(outlet == Self.outlet)
    }

    @Test("a body declared longer than the buffer is streamed from the head on, so the limit is held against it at once")
    func declaredLengthOutgrowsTheBuffer() {
        var machine = Tests.waiting(bufferLimit: 100)
        guard case .stream = machine.receivedHead(Tests.head(.ok, [.contentLength: "101"])) else { Issue.record("expected stream"); return }
    }

    @Test("a HEAD response is held back until the end, buffer limit or not")
    func headRequest() {
        var machine = Tests.machine(isHead: true)
        _ = machine.start(Self.caller)
        guard case .buffer = machine.receivedHead(Tests.head(.ok, [.contentLength: "5000000"])) else { Issue.record("expected buffer"); return }
    }

    @Test("a body in a coding the session did not decode is refused; a bodiless response in it is not")
    func undecodedCoding() {
        var machine = Tests.waiting()
        guard case .refuse(let reason) = machine.receivedHead(Tests.head(.ok, [.contentEncoding: "zstd"])) else { Issue.record("expected refuse"); return }
        #expect(reason == .undecodedCoding("zstd"))

        var noContent = Tests.waiting()
        guard case .stream = noContent.receivedHead(Tests.head(.noContent, [.contentEncoding: "zstd"])) else { Issue.record("expected stream"); return }
        var gzip = Tests.waiting()
        guard case .stream = gzip.receivedHead(Tests.head(.ok, [.contentEncoding: "GZIP"])) else { Issue.record("expected stream"); return }
    }

    // MARK: Chunks

    @Test("chunks within the buffer are held; the one that passes it overflows to streaming with every byte so far")
    func bufferOverflow() {
        var machine = Tests.waiting(bufferLimit: 100)
        let head = Tests.head()
        _ = machine.receivedHead(head)
        guard case .held = machine.receivedData(Data(repeating: 1, count: 60), now: .now) else { Issue.record("expected held"); return }
        guard case .held = machine.receivedData(Data(repeating: 2, count: 40), now: .now) else { Issue.record("100 bytes fit"); return }
        guard case .overflow(let overflowHead, let bytes) = machine.receivedData(Data(repeating: 3, count: 1), now: .now) else {
            Issue.record("expected overflow")
            return
        }
        #expect(overflowHead == head)
        #expect(bytes == Data(repeating: 1, count: 60) + Data(repeating: 2, count: 40) + Data([3]))
        #expect(machine.streaming(to: Self.outlet, buffered: bytes.count) == Self.caller)
        guard case .yield(let outlet, nil) = machine.receivedData(Data(count: 5), now: .now) else { Issue.record("expected yield"); return }
        #expect(outlet == Self.outlet)
    }

    @Test("a chunk before the head is dropped")
    func dataBeforeTheHead() {
        var machine = Tests.waiting()
        guard case .dropped = machine.receivedData(Data(count: 5), now: .now) else { Issue.record("expected dropped"); return }
    }

    @Test("the transfer pauses past the high water mark, once, and resumes at the low water mark")
    func flowControl() {
        var machine = Tests.streaming(pausesTransfer: true)
        #expect(machine.receivedData(Data(count: ReceiveFlow.highWater), now: .now).flowChange == nil, "at the mark, not past it")
        let past = machine.receivedData(Data(count: 1), now: .now)
        guard case .yield(let outlet, .pause?) = past else { Issue.record("expected yield with a pause, got \(past)"); return }
        #expect(outlet == Self.outlet)
        #expect(machine.receivedData(Data(count: 1), now: .now).flowChange == nil, "paused already")
        // Unread: highWater + 2. Down to lowWater + 1, then to lowWater.
        #expect(machine.consumed(ReceiveFlow.highWater + 1 - ReceiveFlow.lowWater) == nil)
        #expect(machine.consumed(1) == .resume)
        #expect(machine.consumed(1000) == nil, "resumed already")
    }

    @Test("a cancellation resumes a paused transfer first, and no pause follows it")
    func cancelWhilePaused() {
        var machine = Tests.streaming(pausesTransfer: true)
        #expect(machine.receivedData(Data(count: ReceiveFlow.highWater + 1), now: .now).flowChange == .pause)
        guard case .cancelTask(.resume?, nil) = machine.cancel(reason: .cancelled) else { Issue.record("expected a resume, nobody to answer"); return }
        #expect(machine.receivedData(Data(count: ReceiveFlow.highWater), now: .now).flowChange == nil)
    }

    @Test("without flow control nothing is paused, however much is unread")
    func noFlowControl() {
        var machine = Tests.streaming()
        #expect(machine.receivedData(Data(count: ReceiveFlow.highWater + 1), now: .now).flowChange == nil)
        #expect(machine.consumed(ReceiveFlow.highWater + 1) == nil)
    }

    @Test("a download's chunks go to its sink; the stream is told the transfer moves at most once per 50 ms")
    func sinkSignalThrottle() {
        let sink = Tests.sink()
        var machine = Tests.waiting(sinkStatuses: [200], sink: sink)
        guard case .stream(let start?) = machine.receivedHead(Tests.head(.ok, [.contentLength: "20"])) else { Issue.record("expected stream with a sink"); return }
        #expect(start.sink === sink)
        #expect(start.total == 20)
        _ = machine.streaming(to: Self.outlet, buffered: 0)
        let start0 = ContinuousClock.now
        func signal(at offset: Duration) -> Tests.Outlet? {
            guard case .writeToSink(let written, let signal) = machine.receivedData(Data(count: 4), now: start0 + offset) else {
                Issue.record("expected writeToSink")
                return nil
            }
            #expect(written === sink)
            return signal
        }
        #expect(signal(at: .zero) == Self.outlet)
        #expect(signal(at: .milliseconds(49)) == nil)
        #expect(signal(at: .milliseconds(50)) == Self.outlet)
        #expect(signal(at: .milliseconds(60)) == nil, "counted from the last signal, not the last chunk")
        #expect(signal(at: .milliseconds(100)) == Self.outlet)
    }

    @Test("a status the sink does not take, or a body delivered whole, streams without the sink")
    func sinkOnlyForItsStatuses() {
        var notFound = Tests.waiting(sinkStatuses: [200], sink: Tests.sink())
        guard case .stream(nil) = notFound.receivedHead(Tests.head(.notFound)) else { Issue.record("expected stream without the sink"); return }
        var whole = Tests.waiting(bufferLimit: 100, sinkStatuses: [200], sink: Tests.sink())
        guard case .buffer(nil) = whole.receivedHead(Tests.head()) else { Issue.record("expected buffer without the sink"); return }
    }

    @Test("a failed sink cancels the request, drops what follows, and ends the body with a local file error")
    func sinkFailure() {
        var machine = Tests.streaming(sinkStatuses: [200], sink: Tests.sink())
        guard case .cancelTask(nil, nil) = machine.sinkFailed(TaskStateMachineTests.DiskFull()) else { Issue.record("expected cancelTask"); return }
        #expect(machine.cancelReason == .sinkFailed)
        guard case .dropped = machine.receivedData(Data(count: 4), now: .now) else { Issue.record("expected dropped"); return }
        guard case .finishBody(let outlet, let error?) = machine.completed(error: nil).end else { Issue.record("expected the body to end with an error"); return }
        #expect(outlet == Self.outlet)
        #expect((error as? TransportError)?.kind == .localFile)
    }

    // MARK: The end

    @Test("after a rejected challenge, the session's 'cancelled' once the 401 arrived is a normal end")
    func rejectedChallenge() {
        var streamed = Tests.waiting()
        streamed.rejectingChallenge()
        _ = streamed.receivedHead(Tests.head(.unauthorized))
        _ = streamed.streaming(to: Self.outlet, buffered: 0)
        guard case .finishBody(_, let error) = streamed.completed(error: URLError(.cancelled)).end else { Issue.record("expected finishBody"); return }
        #expect(error == nil)
        #expect(streamed.completedNormally)

        var whole = Tests.waiting(bufferLimit: 100)
        whole.rejectingChallenge()
        _ = whole.receivedHead(Tests.head(.unauthorized))
        guard case .answerWhole(_, _, _, let wholeError) = whole.completed(error: URLError(.cancelled)).end else { Issue.record("expected answerWhole"); return }
        #expect(wholeError == nil)
    }

    @Test("after a rejected challenge, 'cancelled' before any head, or after the caller's own cancellation, stays an error")
    func rejectedChallengeWithoutTheResponse() {
        var noHead = Tests.waiting()
        noHead.rejectingChallenge()
        guard case .answerFromTask(_, let error) = noHead.completed(error: URLError(.cancelled)).end else { Issue.record("expected answerFromTask"); return }
        #expect(error != nil)
        #expect(!noHead.completedNormally)

        var cancelled = Tests.streaming()
        cancelled.rejectingChallenge()
        _ = cancelled.cancel(reason: .cancelled)
        guard case .finishBody(_, let cancelledError) = cancelled.completed(error: URLError(.cancelled)).end else { Issue.record("expected finishBody"); return }
        #expect(cancelledError is CancellationError)
    }

    @Test("a transfer the session completes after a timeout cancelled it is a timeout, not a success")
    func completedAfterTimeout() {
        var machine = Tests.streaming()
        _ = machine.cancel(reason: .timeout)
        guard case .finishBody(_, let error?) = machine.completed(error: nil).end else { Issue.record("expected the body to end with an error"); return }
        #expect((error as? TransportError)?.kind == .timeout)
    }

    @Test("a held-back body is delivered whole with its head at the end")
    func completedWhileBuffering() {
        var machine = Tests.waiting(bufferLimit: 100)
        let head = Tests.head(.created)
        _ = machine.receivedHead(head)
        _ = machine.receivedData(Data([1, 2, 3]), now: .now)
        _ = machine.receivedData(Data([4]), now: .now)
        guard case .answerWhole(let caller, let delivered, let bytes, let error) = machine.completed(error: nil).end else {
            Issue.record("expected answerWhole")
            return
        }
        #expect(caller == Self.caller && delivered == head && bytes == Data([1, 2, 3, 4]))
        #expect(error == nil)
    }

    @Test("a task that completes without a head answers from the task's own response, or with its error")
    func completedWithoutAHead() {
        var quiet = Tests.waiting()
        guard case .answerFromTask(let caller, nil) = quiet.completed(error: nil).end else { Issue.record("expected answerFromTask without an error"); return }
        #expect(caller == Self.caller)

        var failed = Tests.waiting()
        guard case .answerFromTask(_, let error?) = failed.completed(error: URLError(.timedOut)).end else { Issue.record("expected answerFromTask with an error"); return }
        #expect(error is TransportError)
    }

    @Test("the caller's objects are held until released, then let go of; the completion hands out onFinish once")
    func callerObjectsAndOnFinish() {
        let sink = Tests.sink()
        var machine = Tests.machine(sink: sink, onFinish: {})
        _ = machine.start(Self.caller)
        #expect(machine.completed(error: nil).onFinish != nil)
        #expect(machine.completed(error: nil).onFinish == nil)
        #expect(machine.sink === sink)
        #expect(machine.releaseCallerObjects().sink === sink)
        #expect(machine.sink == nil)
    }
}
