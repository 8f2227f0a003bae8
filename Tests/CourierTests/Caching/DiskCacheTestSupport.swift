@testable import Courier
import Foundation
import HTTPTypes
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the `DiskCacheStore` suites share: a fresh directory per test, keys and entries, and
/// looks at the files.
protocol DiskCacheTestBed {}

extension DiskCacheTestBed {
    /// A directory path under the temporary directory that does not exist yet (the store
    /// creates it), removed when `body` returns.
    func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-disk-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try await body(root.appendingPathComponent("cache"))
    }

    static func key(_ path: String, namespace: String = "default", credentials: String? = nil) -> HTTPCacheKey {
        HTTPCacheKey(namespace: namespace, method: "GET", url: "https://api.example.com\(path)", credentials: credentials)
    }

    static func entry(_ key: HTTPCacheKey, bodySize: Int = 16, fill: UInt8 = 0x61) -> CachedHTTPResponse {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.eTag] = "\"\(key.url.count)\""
        return CachedHTTPResponse(
            key: key, response: HTTPResponse(status: .ok, headerFields: fields), body: Data(repeating: fill, count: bodySize),
            requestDate: Date(timeIntervalSinceReferenceDate: 785_000_000), responseDate: Date(timeIntervalSinceReferenceDate: 785_000_001)
        )
    }

    static func fileURL(for key: HTTPCacheKey, in directory: URL) -> URL {
        directory.appendingPathComponent(DiskCacheDirectory.fileName(for: key))
    }

    static func fileNames(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    static func totalSize(of directory: URL) throws -> Int {
        try fileNames(in: directory).reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            return total + ((attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    static func setModificationDate(_ date: Date, of file: URL) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: file.path)
    }

    static func mode(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return ((attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1) & 0o777
    }
}
