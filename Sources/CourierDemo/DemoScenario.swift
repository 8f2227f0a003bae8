import Courier
import CourierAsyncHTTPClient
import CourierURLSession
import Foundation
import HTTPTypes

/// The demo's steps, in order, against one base URL.
struct DemoScenario {
    let baseURL: URL
    let options: DemoOptions

    private func makeClient(apiKey: String?, extra: [any Middleware] = []) -> APIClient {
        let configuration = APIConfiguration(baseURL: baseURL, timeout: .seconds(10))
        let transport: any Transport = options.transport == .urlSession ? URLSessionTransport() : AsyncHTTPClientTransport()
        // Retry outermost (idempotent requests only), then the API key, added to every request.
        var middleware: [any Middleware] = [RetryMiddleware()]
        if let apiKey { middleware.append(AuthenticationMiddleware(.apiKey(apiKey, header: "X-API-Key"))) }
        // A cache goes after authentication: the credentials are part of its key.
        middleware += extra
        return APIClient(configuration: configuration, transport: transport, middleware: middleware)
    }

    /// Runs every step; returns how many did not behave as expected.
    func run() async -> Int {
        let client = makeClient(apiKey: options.apiKey)
        var transcript = DemoTranscript()

        await transcript.step("List the first page of users", ListUsers(page: 1, perPage: 5), on: client) { page in
            "page \(page.page) of \(page.totalPages) (\(page.totalResults) users): " + page.results.map(\.name).joined(separator: ", ")
        }
        await transcript.step("Search users by name", ListUsers(page: 1, perPage: 10, search: "an"), on: client) { page in
            "\(page.totalResults) match 'an': " + page.results.map(\.name).joined(separator: ", ")
        }
        await transcript.step("Fetch one user", GetUser(id: 3), on: client) { user in
            "#\(user.id) \(user.name) <\(user.email)>"
        }
        await transcript.step("Fetch a user that does not exist", GetUser(id: 999), on: client, expectFailure: true) { user in
            "#\(user.id) \(user.name)"
        }
        let created = await transcript.step("Create a user", CreateUser(name: "Ada Lovelace", email: "ada@example.com"), on: client) { user in
            "created #\(user.id) \(user.name)"
        }
        await transcript.step("Create a user with an empty name", CreateUser(name: "", email: "nobody@example.com"), on: client, expectFailure: true) { user in
            "created #\(user.id)"
        }
        if let created {
            await transcript.step("Upload an avatar (multipart/form-data)", UploadAvatar(userID: created.id, image: Self.samplePNG, fileName: "ada.png"), on: client) { receipt in
                "server received \(receipt.bytes) bytes as '\(receipt.filename ?? "?")' (\(receipt.contentType ?? "no type"))"
            }
        }
        await transcript.step("Call without an API key", GetUser(id: 1), on: makeClient(apiKey: nil), expectFailure: true) { user in
            "#\(user.id)"
        }
        await transcript.step("A path value cannot climb the path", Request<User>(path: "/v1/users/{id}", pathParameters: ["id": "../../admin"]), on: client, expectFailure: true) { user in
            "#\(user.id)"
        }

        transcript.title("Completion-handler API (for code that is not async)")
        let result = await withCheckedContinuation { continuation in
            client.send(GetUser(id: 2)) { continuation.resume(returning: $0) }
        }
        switch result {
        case .success(let user): transcript.note("completion received #\(user.id) \(user.name)")
        case .failure(let error): transcript.note("completion failed: \(error)")
        }
        let cacheFailures = await DemoCacheScenario(makeClient: { makeClient(apiKey: options.apiKey, extra: $0) }).run()
        let macroFailures = await DemoMacroScenario(client: client).run()
        let downloadFailures = options.baseURL == nil ? await DemoDownloadScenario(client: client).run() : 0
        return transcript.failures + (result.isSuccess ? 0 : 1) + cacheFailures + macroFailures + downloadFailures
    }

    /// A tiny valid PNG (1×1 pixel).
    static let samplePNG = Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
        0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
        0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
        0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ])
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
