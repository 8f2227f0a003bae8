import Courier
import CourierMacros
import Foundation

/// The macro half of the demo: the same API through a `@Service` client, then the generated mock.
struct DemoMacroScenario {
    let client: APIClient

    /// Runs the steps; returns how many did not behave as expected.
    func run() async -> Int {
        var failures = 0
        let api = UsersAPIService(client: client)
        print("\n=== The same API through a @Service protocol (UsersAPIService) ===")

        failures += await check("users(page: 2, per_page: 4, q: nil)") {
            let page = try await api.users(page: 2, per_page: 4, q: nil)
            return "page \(page.page) of \(page.totalPages): " + page.results.map(\.name).joined(separator: ", ")
        }
        failures += await check("users(page: 1, per_page: 3, q: \"grace\", _queryItems: [sort=name])") {
            let page = try await api.users(page: 1, per_page: 3, q: "grace", _queryItems: [URLQueryItem(name: "sort", value: "name")])
            return "\(page.totalResults) match: " + page.results.map(\.name).joined(separator: ", ")
        }
        failures += await check("user(id: 5, requestID: \"demo-42\")") {
            let user = try await api.user(id: 5, requestID: "demo-42")
            return "#\(user.id) \(user.name)"
        }
        failures += await check("create(user:)") {
            let user = try await api.create(user: DemoNewUser(name: "Barbara Liskov", email: "barbara@example.com"))
            return "created #\(user.id) \(user.name)"
        }
        failures += await check("upload(id: 1, avatar:) — multipart/form-data") {
            let receipt = try await api.upload(id: 1, avatar: DemoScenario.samplePNG)
            return "server received \(receipt.bytes) bytes as '\(receipt.filename ?? "?")' (\(receipt.contentType ?? "no type"))"
        }
        failures += await check("quickLookup(id: 4) → Response<User>") {
            let response = try await api.quickLookup(id: 4)
            return "status \(response.statusCode), #\(response.value.id) \(response.value.name)"
        }
        failures += await check("user(id:requestID:) with a CR/LF in the header value is refused", expectFailure: true) {
            let user = try await api.user(id: 1, requestID: "x\r\nX-Injected: 1")
            return "#\(user.id)"
        }

        print("\n=== The generated mock (UsersAPIServiceMock) ===")
        let mock = UsersAPIServiceMock()
        mock.userResult = .success(User(id: 99, name: "Mocked Mary", email: "mary@example.com"))
        failures += await check("mock.user(id: 99, requestID: \"t\")") {
            let user = try await mock.user(id: 99, requestID: "t")
            return "#\(user.id) \(user.name); calls recorded: \(mock.userCalls.count)"
        }
        failures += await check("mock.users(...) with nothing set", expectFailure: true) {
            _ = try await mock.users(page: 1, per_page: 1, q: nil)
            return "unexpected value"
        }
        return failures
    }

    private func check(_ title: String, expectFailure: Bool = false, _ body: () async throws -> String) async -> Int {
        print("\n\u{25B6} \(title)")
        do {
            print("  \(try await body())")
            if expectFailure { print("  ✗ expected this step to fail"); return 1 }
            return 0
        } catch {
            print("  \u{2190} \(error)")
            if expectFailure { print("  ✓ failed as expected"); return 0 }
            return 1
        }
    }
}
