import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The events of a download task: ``APIClient/download(_:to:progress:)`` with a sink that adopts
/// files, where the session writes the body to a file of its own as it arrives.
extension TaskHandler {
    /// A download task (``APIClient/download(_:to:progress:)`` with a sink that adopts files)
    /// has written `total` bytes of the body to its own file (`expected`: the length, or −1).
    ///
    /// The session writes each chunk to that file as it arrives (FoundationNetworking on its own
    /// queue, before telling the delegate), so nothing piles up in memory. FoundationNetworking
    /// tells a download task's delegate nothing when the head arrives, and sets the task's
    /// `response` only at the end, so the head is delivered then; meanwhile the bytes count for
    /// the sink's progress and limit.
    func didWrite(totalBytesWritten total: Int64, expected: Int64) {
        deliverDownloadHeadIfWaiting()
        guard let sink else { return }
        let (counts, signal) = box.withLock { box -> (Bool, BodyOutlet?) in
            guard box.sinkError == nil, box.cancelReason == nil else { return (false, nil) }
            switch box.state {
            case .waitingForHead, .idle:
                return (true, nil)      // the status is not known yet
            case .streaming(let continuation) where box.sinking:
                // An empty chunk now and then tells the reader that the transfer is moving.
                let now = ContinuousClock.now
                if let last = box.lastSinkSignal, last.duration(to: now) < .milliseconds(50) { return (true, nil) }
                box.lastSinkSignal = now
                return (true, continuation)
            case .streaming, .buffering, .finished:
                return (false, nil)     // an error body, not the sink's
            }
        }
        guard counts else { return }
        do {
            if expected >= 0 { sink.setTotal(expected) }
            if let report = try sink.written(total: total) { runCallerCode { sink.report(report) } }
            signal?.yield(Data())
        } catch {
            box.withLock { $0.sinkError = error }
            cancel(reason: .sinkFailed)
        }
    }

    /// A download task's file, `location`, holds the whole body (and is removed when this
    /// returns): it becomes the sink's file, or — for a status the client does not accept, whose
    /// body explains an error — its first ``errorBodyKept`` bytes go to the body stream.
    ///
    /// Nothing here takes long: on Linux this runs on the session's work queue, which every
    /// URLSession request in the process shares. The file is renamed into place, which is
    /// instant; when the destination is on another volume than the session's temporary
    /// directory, it is renamed beside `location` instead and copied off that queue before the
    /// body ends (see ``didComplete(error:)``).
    func didFinishDownloading(to location: URL) {
        deliverDownloadHeadIfWaiting()
        let (sinking, stream) = box.withLock { box -> (Bool, BodyOutlet?) in
            guard case .streaming(let continuation) = box.state, box.cancelReason == nil, box.sinkError == nil else { return (false, nil) }
            return (box.sinking, continuation)
        }
        guard let stream else { return }
        if sinking {
            do {
                guard let sink else { return }
                if let report = try sink.adoptFile(at: location) { runCallerCode { sink.report(report) } }
                if sink.hasAdoptionToComplete { box.withLock { $0.adoptionToComplete = sink } }
            } catch {
                box.withLock { $0.sinkError = error }   // the completion reports it
            }
            return
        }
        guard let handle = try? FileHandle(forReadingFrom: location) else { return }
        defer { try? handle.close() }
        // One byte more than is kept, to know whether there was more.
        guard let prefix = try? handle.read(upToCount: Self.errorBodyKept + 1) else { return }
        if prefix.count > Self.errorBodyKept {
            box.withLock { $0.cutErrorBody = true }
            stream.yield(prefix.prefix(Self.errorBodyKept))
        } else if !prefix.isEmpty {
            stream.yield(prefix)
        }
    }

    /// The most bytes of a download task's error body read back from its file (64 KiB): as far
    /// as any reader of an error body goes (``Courier`` quotes a prefix of that size in its
    /// error and drains no more before a retry or a redirect). It is read on the session's
    /// queue — on Linux shared by every URLSession request in the process — where reading a
    /// hostile server's gigabyte back would stall them all. A reader that reads on past it
    /// gets an error saying so, never a body silently cut short.
    static let errorBodyKept = BodyReading.errorPrefixLimit

    /// Delivers a download task's head once the task has one (see ``didWrite(totalBytesWritten:expected:)``).
    func deliverDownloadHeadIfWaiting() {
        guard task is URLSessionDownloadTask, let response = task.response else { return }
        let waiting = box.withLock { box -> Bool in
            if case .waitingForHead = box.state { return true }
            return false
        }
        if waiting { didReceive(response: response) }
    }
}
