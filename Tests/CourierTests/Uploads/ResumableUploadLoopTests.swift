@testable import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The resumable upload's loop over an in-memory origin that speaks the draft and fails where
/// it is told: which requests go out, in which order, with which fields, and the waits on the
/// resumption policy's clock.
@Suite("Resumable uploads: the exchange loop over an in-memory origin")
struct ResumableUploadLoopTests {
    /// An upload origin: `OPTIONS`, creation, `HEAD`, `PATCH`; each append that reaches the next
    /// cut keeps the bytes before it and fails as a lost connection.
    final class Origin: Transport, Sendable {
        struct State {
            var offset = 0
            var stored: [UInt8] = []
            var cuts: [Int]
            var complete = false
            var requests: [HTTPRequest] = []
        }
        let state: Locked<State>
        init(cuts: [Int]) { state = Locked(State(cuts: cuts)) }

        var requests: [HTTPRequest] { state.withLock { $0.requests } }
        var stored: [UInt8] { state.withLock { $0.stored } }

        func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
            state.withLock { $0.requests.append(request) }
            var fields = HTTPFields()
            switch request.method {
            case .options:
                fields[UploadProtocol.acceptPatch] = "application/partial-upload"
                return (HTTPResponse(status: .noContent, headerFields: fields), nil)
            case .post, .put:
                fields[.location] = "/uploads/1"
                return (HTTPResponse(status: .created, headerFields: fields), nil)
            case .head:
                fields[UploadProtocol.uploadOffset] = String(state.withLock { $0.offset })
                fields[UploadProtocol.uploadComplete] = "?0"
                return (HTTPResponse(status: .noContent, headerFields: fields), nil)
            case .patch:
                let start = Int(request.headerFields[UploadProtocol.uploadOffset] ?? "") ?? -1
                guard start == state.withLock({ $0.offset }) else {
                    fields[UploadProtocol.uploadOffset] = String(state.withLock { $0.offset })
                    return (HTTPResponse(status: .conflict, headerFields: fields), nil)
                }
                for try await chunk in body ?? HTTPBody() {
                    for byte in chunk {
                        let cut = state.withLock { state -> Bool in
                            if let next = state.cuts.first, state.offset == next {
                                state.cuts.removeFirst()
                                return true
                            }
                            state.stored.append(byte)
                            state.offset += 1
                            return false
                        }
                        if cut { throw TransportError(.connectionLost, "cut at \(start)") }
                    }
                }
                guard request.headerFields[UploadProtocol.uploadComplete] == "?1" else {
                    fields[UploadProtocol.uploadComplete] = "?0"
                    return (HTTPResponse(status: .noContent, headerFields: fields), nil)
                }
                fields[UploadProtocol.uploadComplete] = "?1"
                let count = state.withLock { $0.stored.count }
                return (HTTPResponse(status: .ok, headerFields: fields), HTTPBody("\(count)"))
            default:
                return (HTTPResponse(status: .methodNotAllowed), nil)
            }
        }
    }

    static func file(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-upload-loop-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        return url
    }

    @Test("two cuts: two waits of the policy's backoff on its clock, a HEAD after each, appends from the server's offset, progress never back")
    func cutsWaitOnTheClock() async throws {
        let content = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let url = try Self.file(content)
        defer { try? FileManager.default.removeItem(at: url) }
        let origin = Origin(cuts: [2_500, 7_000])
        let clock = ManualClock()
        let policy = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(250), jitter: .none)
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
                               transport: origin, middleware: [RetryMiddleware(policy: policy, clock: clock)])
        let reports = Locked<[Int64]>([])
        let answer = try await client.upload(Request<String>(method: .put, path: "/files/a.bin"), fromFile: url, contentType: "image/png",
                                             options: ResumableUploadOptions(requirement: .required)) { progress in
            reports.withLock { $0.append(progress.completedBytes) }
        }
        #expect(answer == "10000")
        #expect(origin.stored == content)
        #expect(clock.sleeps == [.milliseconds(250), .milliseconds(250)], "each resumption after the policy's backoff, on its clock")
        let requests = origin.requests
        #expect(requests.map(\.method) == [.options, .put, .patch, .head, .patch, .head, .patch])
        #expect(requests.compactMap { $0.headerFields[UploadProtocol.uploadOffset] } == ["0", "2500", "7000"])
        #expect(requests[1].headerFields[UploadProtocol.uploadComplete] == "?0")
        #expect(requests[1].headerFields[UploadProtocol.uploadLength] == "10000")
        #expect(requests[1].headerFields[.contentType] == "image/png")
        #expect(requests.dropFirst(2).allSatisfy { $0.path == "/uploads/1" && $0.headerFields[.contentType] != "image/png" })
        #expect(requests.filter { $0.method == .patch }.allSatisfy { $0.headerFields[.contentType] == "application/partial-upload" })
        let completed = reports.withLock { $0 }
        #expect(completed == completed.sorted() && completed.last == 10_000, "\(completed)")
    }

    @Test("without a resumption policy a cut ends the upload: the resource is deleted, or kept with a token")
    func noPolicy() async throws {
        let url = try Self.file(Array(repeating: 7, count: 1_000))
        defer { try? FileManager.default.removeItem(at: url) }
        for keeps in [false, true] {
            let origin = Origin(cuts: [400])
            let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: origin)
            let error = try await #require(throws: APIError.self) {
                try await client.upload(Request<String>(method: .post, path: "/files"), fromFile: url,
                                        options: ResumableUploadOptions(deletesOnFailure: !keeps))
            }
            #expect(origin.requests.last?.method == (keeps ? .patch : .delete))
            #expect((error.uploadResumeToken != nil) == keeps)
            if let token = error.uploadResumeToken {
                #expect(token.uploadResource == "https://api.example.com/uploads/1")
                #expect(token.totalBytes == 1_000 && token.acknowledgedBytes == 0)
            }
        }
    }

    @Test("a token whose upload resource is on another origin is refused, by resume and by cancel")
    func foreignToken() async throws {
        let url = try Self.file(Array(repeating: 7, count: 1_000))
        defer { try? FileManager.default.removeItem(at: url) }
        let origin = Origin(cuts: [400])
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: origin)
        let error = try await #require(throws: APIError.self) {
            try await client.upload(Request<String>(method: .post, path: "/files"), fromFile: url, options: ResumableUploadOptions(deletesOnFailure: false))
        }
        let token = try #require(error.uploadResumeToken)
        // A hostile local user edits the saved token to send the file elsewhere.
        var fields = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(token)) as? [String: Any])
        fields["uploadResource"] = "https://attacker.example/uploads/1"
        let forged = try JSONDecoder().decode(UploadResumeToken.self, from: JSONSerialization.data(withJSONObject: fields))
        #expect(forged.uploadResource.contains("attacker.example") && forged.url == token.url)
        let before = origin.requests.count
        let refused = try await #require(throws: APIError.self) {
            try await client.upload(Request<String>(method: .post, path: "/files"), fromFile: url, resumingFrom: forged)
        }
        #expect((refused.underlyingError as? UploadError)?.reason == .tokenMismatch)
        let cancelRefused = try await #require(throws: APIError.self) { try await client.cancelUpload(forged) }
        #expect((cancelRefused.underlyingError as? UploadError)?.reason == .tokenMismatch)
        #expect(origin.requests.count == before, "nothing was sent")
    }
}
