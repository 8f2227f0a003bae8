import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session's delegate: routes each task's events to its ``TaskHandler`` and refuses
/// redirects, which Courier follows itself. Every task is a data or upload task (downloads
/// too: see ``URLSessionTransport``).
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// Keyed by the task object (identifiers are only unique within one session).
    private let handlers = Locked<[ObjectIdentifier: TaskHandler]>([:])

    func register(_ handler: TaskHandler, for task: URLSessionTask) {
        handlers.withLock { $0[ObjectIdentifier(task)] = handler }
    }

    /// Tasks registered and not yet completed.
    var inFlightCount: Int { handlers.withLock { $0.count } }

    private func handler(for task: URLSessionTask) -> TaskHandler? {
        handlers.withLock { $0[ObjectIdentifier(task)] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        handler(for: dataTask)?.didReceive(response: response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        handler(for: dataTask)?.didReceive(data: data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        handler(for: task)?.didSend(totalBytesSent: totalBytesSent)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let handler = handlers.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
        handler?.didComplete(error: error)
    }

    /// HTTP authentication challenges (`401` with `WWW-Authenticate: Basic`, Digest, NTLM…) are
    /// rejected, so the `401` reaches Courier at once, where authentication middleware decide
    /// what to do. (Left to the session, FoundationNetworking waits for a credential nobody
    /// gives until the request times out.) Server-trust challenges get the system's default
    /// handling.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard Self.httpAuthenticationMethods.contains(challenge.protectionSpace.authenticationMethod) else {
            Self.answer(challenge: completionHandler, with: .performDefaultHandling)   // server trust, client certificates
            return
        }
        handler(for: task)?.willRejectAuthenticationChallenge()
        Self.answer(challenge: completionHandler, with: .rejectProtectionSpace)
    }

    /// Calls a challenge's completion handler. On Linux the delegate runs on the session's work
    /// queue (``InlineDelegateQueue``), and FoundationNetworking's handler cancels or suspends
    /// the task with `workQueue.sync`, which would deadlock there: it is called from another
    /// queue.
    private static func answer(challenge completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void,
                               with disposition: URLSession.AuthChallengeDisposition) {
        #if canImport(FoundationNetworking)
        // The handler is FoundationNetworking's, safe to call from any thread; it is not declared Sendable.
        nonisolated(unsafe) let completionHandler = completionHandler
        DispatchQueue.global().async { completionHandler(disposition, nil) }
        #else
        completionHandler(disposition, nil)
        #endif
    }

    /// The challenges a server makes with `401` + `WWW-Authenticate`.
    private static let httpAuthenticationMethods: Set<String> = [
        NSURLAuthenticationMethodDefault, NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
        NSURLAuthenticationMethodHTMLForm, NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate,
    ]

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
