@testable import Courier
import Foundation
import InMemoryLogging
import Logging

extension CookieJar {
    /// Stores `lines` as if the response to `url` had them, and returns the `Cookie` header a
    /// request to `next` (default: `url`) would carry.
    @discardableResult
    func receive(_ lines: [String], from url: String) -> Int {
        receive(lines, from: CookieRequestURL(URL(string: url)!)!, logger: APIConfiguration.silentLogger)
    }

    func header(for url: String) -> String? {
        cookieHeader(for: CookieRequestURL(URL(string: url)!)!)
    }
}

/// A path for a cookie file in a new, empty directory of its own; the test removes the
/// directory (`file.deletingLastPathComponent()`) when it ends.
func temporaryCookieFile() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cookies-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("cookies.json")
}

/// A logger for a jar, and the handler that keeps what the jar logs.
func recordingCookieLogger() -> (Logger, InMemoryLogHandler) {
    let handler = InMemoryLogHandler()
    return (Logger(label: "cookies") { _ in handler }, handler)
}
