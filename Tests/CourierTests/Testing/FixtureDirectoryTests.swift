import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Fixture injection by path")
struct FixtureDirectoryTests {
    private func makeFixtures() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fixtures-\(UUID().uuidString)")
        let files: [String: String] = [
            "users.json": #"[{"id": 1, "name": "Ada"}]"#,
            "users/{id}.json": #"{"id": 0, "name": "Anyone"}"#,
            "users/42.json": #"{"id": 42, "name": "Douglas"}"#,
            "users.POST.json": #"{"id": 101, "name": "New"}"#,
            "users/404.GET.404.json": #"{"message": "no such user"}"#,
            "readme.txt": "plain text",
        ]
        for (path, content) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(content.utf8).write(to: url)
        }
        return root
    }

    @Test("a fixture is read when a request arrives: one edited after loading answers with its new content")
    func readAtEachRequest() async throws {
        let root = try makeFixtures()
        defer { try? FileManager.default.removeItem(at: root) }
        let (client, stub) = makeClient()
        try stub.loadFixtures(from: root)
        #expect(try await client.send(Request<[User]>(path: "/users")) == [User(id: 1, name: "Ada")])
        try Data(#"[{"id": 2, "name": "Grace"}]"#.utf8).write(to: root.appendingPathComponent("users.json"))
        #expect(try await client.send(Request<[User]>(path: "/users")) == [User(id: 2, name: "Grace")])
    }

    @Test("files answer the paths they mirror, with method and status from their names")
    func routes() async throws {
        let root = try makeFixtures()
        defer { try? FileManager.default.removeItem(at: root) }
        let (client, stub) = makeClient()
        let routes = try stub.loadFixtures(from: root)
        #expect(routes.count == 6)

        #expect(try await client.send(Request<[User]>(path: "/users")) == [User(id: 1, name: "Ada")])
        #expect(try await client.send(Request<User>(path: "/users/42")).name == "Douglas")
        #expect(try await client.send(Request<User>(path: "/users/7")).name == "Anyone")
        #expect(try await client.send(Request<User>(method: .post, path: "/users", body: .json(NewUser(name: "x")))).id == 101)
        await #expect { try await client.send(Request<User>(path: "/users/404")) } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .httpError, apiError.statusCode == 404, case let message = apiError.message else { return false }
            return message == "no such user"
        }
        #expect(try await client.send(Request<String>(path: "/readme")) == "plain text")
    }

    @Test("the more specific pattern answers: users/{id} before {collection}/{id}, whatever their names' order")
    func specificPatternWins() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fixtures-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for (path, name) in [("users/{id}.json", "a user"), ("{collection}/{id}.json", "anything"), ("users/{id}/posts/{post}.json", "a user's post"),
                             ("{collection}/{id}/posts/{post}.json", "any post")] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(#"{"id": 0, "name": "\#(name)"}"#.utf8).write(to: url)
        }
        let (client, stub) = makeClient()
        try stub.loadFixtures(from: root)
        #expect(try await client.send(Request<User>(path: "/users/7")).name == "a user")
        #expect(try await client.send(Request<User>(path: "/teams/7")).name == "anything")
        #expect(try await client.send(Request<User>(path: "/users/7/posts/1")).name == "a user's post")
        #expect(try await client.send(Request<User>(path: "/teams/7/posts/1")).name == "any post")
    }

    @Test("a missing directory is a clear error")
    func missingDirectory() {
        let stub = StubTransport()
        #expect {
            try stub.loadFixtures(from: URL(fileURLWithPath: "/nonexistent/fixtures"))
        } throws: { error in
            "\(error)".contains("/nonexistent/fixtures")
        }
    }

    @Test("fixtures from a bundle's resource directory")
    func bundle() async throws {
        let root = try makeFixtures()
        defer { try? FileManager.default.removeItem(at: root) }
        let bundle = try #require(Bundle(path: root.deletingLastPathComponent().path))
        let (client, stub) = makeClient()
        try stub.loadFixtures(in: bundle, subdirectory: root.lastPathComponent)
        #expect(try await client.send(Request<User>(path: "/users/42")).id == 42)
    }
}
