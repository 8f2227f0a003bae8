@testable import Courier
import Foundation
import HTTPTypes
import Testing

@Suite("Path templates")
struct PathTemplateTests {
    @Test("a value is percent-encoded as one segment")
    func valueIsOneSegment() throws {
        #expect(try PathTemplate.expand("/users/{id}", with: ["id": "../admin"]) == "/users/..%2Fadmin")
        #expect(try PathTemplate.expand("/users/{id}", with: ["id": "a/b?c#d"]) == "/users/a%2Fb%3Fc%23d")
        #expect(try PathTemplate.expand("/users/{id}", with: ["id": "100%"]) == "/users/100%25")
        #expect(try PathTemplate.expand("/u/{name}", with: ["name": "José Ñ+&="]) == "/u/Jos%C3%A9%20%C3%91%2B%26%3D")
    }

    @Test("'.' and '..' as a whole value are refused")
    func dotSegmentsRefused() {
        #expect(throws: PathEncodingError.self) { try PathTemplate.expand("/files/{name}", with: ["name": ".."]) }
        #expect(throws: PathEncodingError.self) { try PathTemplate.expand("/files/{name}", with: ["name": "."]) }
        #expect((try? PathTemplate.expand("/files/{name}", with: ["name": "..."])) == "/files/...")
    }

    @Test("{+name} inserts a raw sub-path, still refusing dot-segments")
    func rawSubPath() throws {
        #expect(try PathTemplate.expand("/files/{+path}", with: ["path": "a/b c/d.txt"]) == "/files/a/b%20c/d.txt")
        #expect(throws: PathEncodingError.self) { try PathTemplate.expand("/files/{+path}", with: ["path": "a/../etc"]) }
    }

    @Test("an empty value is refused, naming the parameter: '/users/{id}' never becomes '/users/'")
    func emptyValueRefused() {
        for template in ["/users/{id}", "/users/{+id}", "/users/{id=3}", "/users/{id}/posts"] {
            #expect {
                try PathTemplate.expand(template, with: ["id": ""])
            } throws: { error in
                "\(error)".contains("'id'") && "\(error)".contains("empty")
            }
        }
        #expect(throws: PathEncodingError.self) { try PathTemplate.segment("", name: "id") }
        #expect(throws: PathEncodingError.self) { try PathTemplate.subPath("", name: "id") }
        #expect((try? PathTemplate.expand("/users/{id}", with: ["id": " "])) == "/users/%20")
    }

    @Test("defaults are used when a parameter has no value")
    func defaults() throws {
        #expect(try PathTemplate.expand("/authors/{name=\"John Smith\"}", with: [:]) == "/authors/John%20Smith")
        #expect(try PathTemplate.expand("/posts/{id=3}", with: [:]) == "/posts/3")
        #expect(try PathTemplate.expand("/posts/{id=3}", with: ["id": "9"]) == "/posts/9")
    }

    @Test("a missing parameter is an error that names it")
    func missingParameter() {
        #expect {
            try PathTemplate.expand("/users/{id}", with: [:])
        } throws: { error in
            "\(error)".contains("'id'")
        }
    }

    @Test("literal text outside templates keeps its escapes and encodes what a path cannot hold")
    func literalText() throws {
        #expect(try PathTemplate.expand("/a%20b/c d", with: [:]) == "/a%20b/c%20d")
    }
}

@Suite("Request target and method")
struct RequestTargetTests {
    @Test("CR, LF, NUL and spaces in a literal path are percent-encoded, never sent raw")
    func controlCharactersInPath() throws {
        let (client, _) = makeClient()
        let (head, _) = try client.prepare(Request<Data>(path: "/a b\r\nX-Injected: 1\u{0}"))
        let target = try #require(head.path)
        #expect(target == "/v2/a%20b%0D%0AX-Injected:%201%00")
        #expect(!target.utf8.contains { $0 < 0x21 || $0 == 0x7F })
    }

    @Test("a method must be an HTTP token: swift-http-types refuses anything else")
    func methodIsAToken() {
        #expect(HTTPRequest.Method("GET\r\nX: y") == nil)
        #expect(HTTPRequest.Method("GE T") == nil)
        #expect(HTTPRequest.Method("PURGE") != nil)
    }
}
