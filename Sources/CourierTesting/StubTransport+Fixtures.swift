import Courier
import Foundation
import HTTPTypes

/// A route that ``StubTransport/loadFixtures(from:)`` derived from a fixture file.
public struct FixtureRoute: Sendable, Hashable, CustomStringConvertible {
    /// The method it answers.
    public var method: HTTPRequest.Method
    /// The path pattern it answers.
    public var pattern: PathPattern
    /// The file whose contents are the response body.
    public var file: URL
    /// The status it answers with.
    public var status: Int

    public var description: String { "\(method) \(pattern) → \(file.lastPathComponent) (\(status))" }
}

extension StubTransport {
    /// A fixture directory that could not be read.
    public struct FixtureDirectoryError: Error, Sendable, CustomStringConvertible {
        /// The directory.
        public var path: String
        /// Why.
        public var reason: String
        public var description: String { "StubTransport: cannot load fixtures from '\(path)': \(reason)" }
    }

    /// Answers requests from a directory of fixture files whose paths mirror the API's (what
    /// Snowdrop calls "JSON injection"):
    ///
    /// ```
    /// Fixtures/
    ///   users.json                 GET  /users
    ///   users/{id}.json            GET  /users/7, /users/8 …
    ///   users/42.json              GET  /users/42  (a literal beats {id}: it is added later)
    ///   users.POST.json            POST /users
    ///   users/404.GET.404.json     GET  /users/404, answered with status 404
    /// ```
    ///
    /// A file is `<path>[.<METHOD>[.<status>]].<extension>`; the method defaults to GET and
    /// the status to 200; the content type follows the extension. Patterns match the request's
    /// path relative to the base URL, like every stub. Files are read when a request arrives,
    /// so editing a fixture needs no reload. Literal paths are registered after patterns, so
    /// they win.
    ///
    /// - Returns: The routes added, for assertions or logs.
    @discardableResult
    public func loadFixtures(from directory: URL) throws -> [FixtureRoute] {
        let root = directory.standardizedFileURL.resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FixtureDirectoryError(path: directory.path, reason: "no such directory")
        }
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw FixtureDirectoryError(path: directory.path, reason: "it cannot be listed")
        }
        var routes: [FixtureRoute] = []
        for case let file as URL in enumerator {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let fullPath = file.standardizedFileURL.resolvingSymlinksInPath().path
            guard fullPath.hasPrefix(root.path) else { continue }
            let relative = String(fullPath.dropFirst(root.path.count))
            if let route = Self.route(forRelativePath: relative, file: file) { routes.append(route) }
        }
        // The most recently added stub wins: the least specific patterns go first, literals last.
        routes.sort { Self.specificity(of: $0.pattern.description) < Self.specificity(of: $1.pattern.description) }
        for route in routes {
            // Read at each request, not now: a fixture edited after loading is what the next
            // request gets (a file added after loading has no route; load again for it).
            on(route.method, route.pattern) { _ in StubResponse.file(route.file, status: route.status) }
        }
        return routes
    }

    /// How specific a route pattern is, for ordering: a literal path beats any pattern; among
    /// patterns, more literal segments, then a later first placeholder (`users/{id}` beats
    /// `{collection}/{id}`); then the text, so the order is the same every time.
    static func specificity(of pattern: String) -> (Int, Int, Int, String) {
        let segments = pattern.split(separator: "/")
        let placeholder = { (segment: Substring) in segment.contains("{") }
        let firstPlaceholder = segments.firstIndex(where: placeholder) ?? segments.count
        let isLiteral = segments.contains(where: placeholder) ? 0 : 1
        return (isLiteral, segments.count(where: { !placeholder($0) }), firstPlaceholder, pattern)
    }

    /// Answers requests from a fixture directory inside a bundle (a test target's resources:
    /// `resources: [.copy("Fixtures")]`, then `loadFixtures(in: .module, subdirectory: "Fixtures")`).
    @discardableResult
    public func loadFixtures(in bundle: Bundle, subdirectory: String) throws -> [FixtureRoute] {
        guard let url = bundle.url(forResource: subdirectory, withExtension: nil)
            ?? bundle.resourceURL?.appendingPathComponent(subdirectory)
        else {
            throw FixtureDirectoryError(path: subdirectory, reason: "not in bundle \(bundle.bundlePath)")
        }
        return try loadFixtures(from: url)
    }

    /// `users/{id}.GET.404.json` → GET /users/{id}, status 404.
    static func route(forRelativePath relative: String, file: URL) -> FixtureRoute? {
        var components = relative.split(separator: "/").map(String.init)
        guard let name = components.popLast(), !name.hasPrefix(".") else { return nil }
        var parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2 else { return nil }
        parts.removeLast()  // the extension
        var status = 200
        var method = HTTPRequest.Method.get
        if parts.count >= 3, let code = Int(parts.last!), (100...599).contains(code) {
            status = code
            parts.removeLast()
        }
        if parts.count >= 2, let last = parts.last, last == last.uppercased(), last.allSatisfy(\.isLetter),
           let parsed = HTTPRequest.Method(last) {
            method = parsed
            parts.removeLast()
        }
        let base = parts.joined(separator: ".")
        components.append(base)
        var path = "/" + components.joined(separator: "/")
        if path.hasSuffix("/index") { path.removeLast("/index".count) }
        if path.isEmpty { path = "/" }
        return FixtureRoute(method: method, pattern: PathPattern(path), file: file, status: status)
    }
}
