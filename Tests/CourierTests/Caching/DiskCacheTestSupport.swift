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

    /// Rewrites the JSON metadata of the entry file `file` with `edit`, keeping the file's frame
    /// (magic line, metadata length, body) consistent: a tampered file, as a hostile local user
    /// or a damaged disk would leave it.
    static func rewriteMetadata(of file: URL, _ edit: (inout String) throws -> Void) throws {
        let data = try Data(contentsOf: file)
        let magic = Data("CourierHTTPCache 1\n".utf8)
        let prefixSize = magic.count + 4
        let length = data[prefixSize - 4..<prefixSize].reduce(0) { $0 << 8 | Int($1) }
        var json = String(decoding: data[prefixSize..<prefixSize + length], as: UTF8.self)
        try edit(&json)
        let metadata = Data(json.utf8)
        let count = metadata.count
        var tampered = magic
        tampered += Data([UInt8(count >> 24 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)])
        tampered += metadata + data[(prefixSize + length)...]
        try tampered.write(to: file)
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
