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
        /// A hostile or unlucky behaviour, for the tests below.
        enum Quirk: Sendable {
            case none
            /// Every append answered `307` to another origin.
            case redirectsAppends
            /// The first append (not the last) answered `Upload-Complete: ?1`.
            case claimsCompleteEarly
            /// The completing append is stored, then its answer lost and the resource freed.
            case losesAnswerAndForgets
            /// `HEAD` announces another upload's length.
            case headLength(Int)
        }
        struct State {
            var quirk: Quirk = .none
            var forgotten = false
            var offset = 0
            var stored: [UInt8] = []
            var cuts: [Int]
            var complete = false
            var requests: [HTTPRequest] = []
        }
        let state: Locked<State>
        init(cuts: [Int], quirk: Quirk = .none) { state = Locked(State(quirk: quirk, cuts: cuts)) }

        var requests: [HTTPRequest] { state.withLock { $0.requests } }
        var stored: [UInt8] { state.withLock { $0.stored } }

        func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
            state.withLock { $0.requests.append(request) }
            var fields = HTTPFields()
            let (quirk, forgotten) = state.withLock { ($0.quirk, $0.forgotten) }
            if forgotten, request.path == "/uploads/1" { return (HTTPResponse(status: .notFound), nil) }
            switch request.method {
            case .options:
                fields[UploadProtocol.acceptPatch] = "application/partial-upload"
                return (HTTPResponse(status: .noContent, headerFields: fields), nil)
            case .post, .put:
                fields[.location] = "/uploads/1"
                return (HTTPResponse(status: .created, headerFields: fields), nil)
            case .head:
                if case .headLength(let other) = quirk { fields[UploadProtocol.uploadLength] = String(other) }
                fields[UploadProtocol.uploadOffset] = String(state.withLock { $0.offset })
                fields[UploadProtocol.uploadComplete] = "?0"
                return (HTTPResponse(status: .noContent, headerFields: fields), nil)
            case .patch:
                if case .redirectsAppends = quirk {
                    fields[.location] = "https://elsewhere.example/uploads/1"
                    return (HTTPResponse(status: .temporaryRedirect, headerFields: fields), nil)
                }
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
                if case .claimsCompleteEarly = quirk {
                    fields[UploadProtocol.uploadComplete] = "?1"
                    return (HTTPResponse(status: .ok, headerFields: fields), HTTPBody("early"))
                }
                if case .losesAnswerAndForgets = quirk, request.headerFields[UploadProtocol.uploadComplete] == "?1" {
                    state.withLock { $0.forgotten = true }
                    throw TransportError(.connectionLost, "answer lost")
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

    func client(_ origin: Origin) -> APIClient {
        let policy = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(1), jitter: .none)
        return APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
                         transport: origin, middleware: [RetryMiddleware(policy: policy, clock: ManualClock())])
    }

    func failure(_ quirk: Origin.Quirk, size: Int = 1_000, appendSize: Int64? = nil) async throws -> (UploadError.Reason?, Origin) {
        let url = try Self.file(Array(repeating: 7, count: size))
        defer { try? FileManager.default.removeItem(at: url) }
        let origin = Origin(cuts: [], quirk: quirk)
        let error = try await #require(throws: APIError.self) {
            try await client(origin).upload(Request<String>(method: .post, path: "/files"), fromFile: url,
                                            options: ResumableUploadOptions(appendSize: appendSize))
        }
        return ((error.underlyingError as? UploadError)?.reason, origin)
    }

    @Test("hostile answers: a redirect of an append, a partial append called complete, another upload's length — each a clear error, the file never sent elsewhere")
    func hostileAnswers() async throws {
        let (redirected, origin) = try await failure(.redirectsAppends)
        #expect(redirected == nil, "an HTTP error: the 307 is not followed")
        #expect(origin.requests.allSatisfy { $0.authority == "api.example.com" }, "\(origin.requests.map { "\($0.method) \($0.authority ?? "-")\($0.path ?? "")" })")
        #expect(try await failure(.claimsCompleteEarly, appendSize: 100).0 == .invalidOffset)
        let url = try Self.file(Array(repeating: 7, count: 1_000))
        defer { try? FileManager.default.removeItem(at: url) }
        let cut = Origin(cuts: [400], quirk: .headLength(5_000))
        let error = try await #require(throws: APIError.self) {
            try await client(cut).upload(Request<String>(method: .post, path: "/files"), fromFile: url, options: ResumableUploadOptions())
        }
        #expect((error.underlyingError as? UploadError)?.reason == .invalidUploadResource, "\(error)")
    }

    @Test("the completing append's answer lost and the resource freed: responseLost, never a second upload")
    func lostFinalAnswer() async throws {
        let (reason, origin) = try await failure(.losesAnswerAndForgets)
        #expect(reason == .responseLost)
        #expect(origin.requests.filter { $0.method == .post }.count == 1)
    }

    @Test("the caller's conditions and idempotency key go with the creation only; its status codes judge the last answer only")
    func callerFields() async throws {
        let url = try Self.file(Array(repeating: 7, count: 1_000))
        defer { try? FileManager.default.removeItem(at: url) }
        let origin = Origin(cuts: [500])
        let request = Request<String>(method: .put, path: "/files/a", headers: [.ifNoneMatch: "*", HTTPField.Name("Idempotency-Key")!: "k1"],
                                      options: RequestOptions(acceptableStatusCodes: [200]))
        let answer = try await client(origin).upload(request, fromFile: url, options: ResumableUploadOptions(appendSize: 300))
        #expect(answer == "1000")
        let requests = origin.requests
        #expect(requests[1].headerFields[.ifNoneMatch] == "*")
        #expect(requests.dropFirst(2).allSatisfy { $0.headerFields[.ifNoneMatch] == nil && $0.headerFields[HTTPField.Name("Idempotency-Key")!] == nil })
    }

    @Test("the server's min-append-size overrides the caller's smaller appends; its max stays a hard limit")
    func minimumAppend() async throws {
        let url = try Self.file(Array(repeating: 7, count: 1_000))
        defer { try? FileManager.default.removeItem(at: url) }
        struct Limited: Transport {
            let inner: Origin
            func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
                var (head, answer) = try await inner.send(request, body: body, context: context)
                if request.method == .options { head.headerFields[UploadProtocol.uploadLimit] = "min-append-size=400, max-append-size=450" }
                return (head, answer)
            }
        }
        let origin = Origin(cuts: [])
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: Limited(inner: origin))
        _ = try await client.upload(Request<String>(method: .post, path: "/files"), fromFile: url, options: ResumableUploadOptions(appendSize: 100))
        #expect(origin.requests.compactMap { $0.headerFields[UploadProtocol.uploadOffset] } == ["0", "400", "800"])
    }

    @Test("a server that acknowledges appends without taking a byte ends the upload after the policy's attempts, not never")
    func appendsThatTakeNothing() async throws {
        struct Stalling: Transport {
            let patches = Locked(0)
            func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
                var fields = HTTPFields()
                switch request.method {
                case .options: fields[UploadProtocol.acceptPatch] = "application/partial-upload"
                case .post: fields[.location] = "/uploads/1"; return (HTTPResponse(status: .created, headerFields: fields), nil)
                default:
                    patches.withLock { $0 += 1 }
                    if let body { for try await _ in body {} }
                    fields[UploadProtocol.uploadOffset] = "0"
                    fields[UploadProtocol.uploadComplete] = "?0"
                }
                return (HTTPResponse(status: .noContent, headerFields: fields), nil)
            }
        }
        let url = try Self.file(Array(repeating: 7, count: 1_000))
        defer { try? FileManager.default.removeItem(at: url) }
        let transport = Stalling()
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: transport)
        let error = try await #require(throws: APIError.self) {
            try await client.upload(Request<String>(method: .post, path: "/files"), fromFile: url,
                                    options: ResumableUploadOptions(appendSize: 100, deletesOnFailure: false))
        }
        #expect((error.underlyingError as? UploadError)?.reason == .invalidOffset, "\(error)")
        #expect(transport.patches.withLock { $0 } == 3)
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
