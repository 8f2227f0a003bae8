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

        failures += await check("users(page: 2, perPage: 4, search: nil) — sent as ?page=2&per_page=4") {
            let page = try await api.users(page: 2, perPage: 4, search: nil)
            return "page \(page.page) of \(page.totalPages), \(page.results.count) per page: " + page.results.map(\.name).joined(separator: ", ")
        }
        failures += await check("users(page: 1, perPage: 3, search: \"grace\", _queryItems: [sort=name])") {
            let page = try await api.users(page: 1, perPage: 3, search: "grace", _queryItems: [URLQueryItem(name: "sort", value: "name")])
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
        mock.usersHandler = { call in
            Page(page: call.page, results: [User(id: 1, name: "Handled Hal", email: "hal@example.com")],
                 totalPages: 1, totalResults: 1)
        }
        failures += await check("mock.users(page: 3, perPage: 5, search: \"h\") — answered by a handler") {
            let page = try await mock.users(page: 3, perPage: 5, search: "h")
            let call = mock.usersCalls.last
            return "\(page.results.map(\.name).joined(separator: ", ")); recorded page \(call?.page ?? 0), perPage \(call?.perPage ?? 0), search \(call?.search ?? "nil")"
        }
        print("\n  A mock method with neither a result nor a handler throws MockUnimplementedError")
        print("  (\"unimplemented: UsersAPIServiceMock.users(page:perPage:search:)\") and fails the running test.")
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
