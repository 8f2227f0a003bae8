import Courier
@testable import CourierURLSession
import Foundation
import Testing

#if canImport(FoundationNetworking)
/// The queue a `URLSessionTransport`'s session calls its delegate on, on Linux: each block runs in
/// place on FoundationNetworking's work queue (no operation, no thread hand-off, no chunk waiting
/// in a queue with its bytes). What that means for progress handlers is tested over a server in
/// `CourierIntegrationTests`' `DelegateQueueTests`.
@Suite("The URLSession inline delegate queue")
struct InlineDelegateQueueTests {
    @Test("delegate calls run in place, in the order they are added, and never wait in the queue")
    func inlineQueueRunsInPlace() {
        let queue = InlineDelegateQueue(label: "test")
        let order = Locked<[Int]>([])
        let caller = pthread_self()
        for index in 0..<100 {
            queue.addOperation {
                let sameThread = pthread_equal(pthread_self(), caller) != 0
                #expect(sameThread)
                order.withLock { $0.append(index) }
            }
            #expect(order.withLock { $0.count } == index + 1)   // done before addOperation returned
            #expect(queue.operationCount == 0)
        }
        #expect(order.withLock { $0 } == Array(0..<100))
    }
}
#endif
