@testable import CourierURLSession
import Foundation
import HTTPTypes
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a URLSession response head becomes an `HTTPResponse`.
@Suite("URLSession response heads")
struct ResponseHeadConversionTests {
    @Test("Set-Cookie fields that HTTPURLResponse folded into one are handed on as separate fields; other fields stay as they are")
    func foldedSetCookieIsSplit() throws {
        let url = try #require(URL(string: "https://example.com/"))
        let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [
            "Set-Cookie": "a=1; Path=/, b=2; Expires=Fri, 01 Jan 2100 00:00:00 GMT",
            "Cache-Control": "no-cache, no-store",
        ]))
        let head = try TaskHandler.head(from: response)
        #expect(head.headerFields[values: .setCookie] == ["a=1; Path=/", "b=2; Expires=Fri, 01 Jan 2100 00:00:00 GMT"])
        #expect(head.headerFields[.cacheControl] == "no-cache, no-store")
    }

    @Test("a folded Set-Cookie value that splits into more fields than the limit is refused, naming it, without a trap")
    func foldedSetCookiePastTheLimit() async {
        await #expect(processExitsWith: .success) {
            let url = URL(string: "https://example.com/")!
            let folded = Array(repeating: "a=", count: 70_000).joined(separator: ",")
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Set-Cookie": folded])!
            do {
                _ = try TaskHandler.head(from: response)
                exit(1)
            } catch {
                guard "\(error)".contains("more than 10000 header fields") else { exit(2) }
            }
        }
    }
}

/// Upload files a crashed process left in the temporary directory are swept.
@Suite("URLSession temporary upload files")
struct TemporaryUploadSweepTests {
    @Test("stale courier-upload files of this user are removed; fresh ones, other names and links stay")
    func sweepsStaleFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-sweep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let old = Date().addingTimeInterval(-2 * TemporaryUploadSweep.staleAfter)
        func make(_ name: String, modified: Date) throws {
            let url = directory.appendingPathComponent(name)
            try Data("x".utf8).write(to: url)
            try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: url.path)
        }
        try make("courier-upload-stale.body", modified: old)
        try make("courier-upload-fresh.body", modified: Date())
        try make("other-stale.body", modified: old)
        let target = directory.appendingPathComponent("target")
        try make("target", modified: old)
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("courier-upload-link.body").path, withDestinationPath: target.path)

        let removed = TemporaryUploadSweep.sweep(directory, now: Date())
        #expect(removed == ["courier-upload-stale.body"])
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == ["courier-upload-fresh.body", "courier-upload-link.body", "other-stale.body", "target"])
    }
}
