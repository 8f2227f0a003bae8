import Courier
@testable import CourierAsyncHTTPClient
import Foundation
import NIOCore
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("AsyncHTTPClient errors: a socket error says whether the request may have been sent")
struct AsyncHTTPClientErrorsTests {
    private func mapped(_ code: Int32) throws -> TransportError {
        try #require(AsyncHTTPClientErrors.map(IOError(errnoCode: code, reason: "test")) as? TransportError)
    }

    @Test("a connect error (no route, refused, host unreachable) is connectionFailed: nothing was sent, the cause is named",
          arguments: [(ENETUNREACH, NetworkFailure.offline), (ECONNREFUSED, .connectionRefused), (EHOSTUNREACH, .cannotConnect)])
    func connectErrors(_ code: Int32, _ cause: NetworkFailure) throws {
        let error = try mapped(code)
        #expect(error.kind == .connectionFailed)
        #expect(!error.requestMayHaveBeenSent)
        #expect(error.networkFailure == cause)
    }

    @Test("a timeout or reset on an open connection stays connectionLost: the request may have been sent, so a retry must not assume otherwise",
          arguments: [ETIMEDOUT, ECONNRESET, EPIPE])
    func errorsOnAnOpenConnection(_ code: Int32) throws {
        let error = try mapped(code)
        #expect(error.kind == .connectionLost)
        #expect(error.requestMayHaveBeenSent)
    }

    @Test("an errno Courier does not know is connectionLost too, never a claim that nothing was sent")
    func unknownErrno() throws {
        let error = try mapped(EIO)
        #expect(error.kind == .connectionLost)
        #expect(error.requestMayHaveBeenSent)
    }
}
