import Foundation
import HTTPTypes

extension APIClient {
    /// Pages from `first` on, asking `next` for the request of the following page; `nil` ends
    /// the sequence. The other `pages` methods are built on this one.
    ///
    /// ```swift
    /// let pages = client.pages(Request<[Event]>(path: "/events").query("offset", "0")) { request, response in
    ///     guard response.value.count == 50 else { return nil }
    ///     let offset = Int(request.query.first { $0.name == "offset" }?.value ?? "0")! + 50
    ///     return Request<[Event]>(path: "/events").query("offset", String(offset))
    /// }
    /// ```
    ///
    /// A server that leads back to a page already fetched (a `Link` chain 1 → 2 → 1, a cursor
    /// that comes round again) ends the sequence with an ``APIError`` of kind ``APIError/Kind/network``
    /// whose underlying error is a ``PaginationError``, instead of looping forever: every
    /// strategy is checked, by the method, URL, header fields and body of each page's request
    /// (a cursor may travel in any of them). A server that offers
    /// more than ``PageSequence/defaultPageLimit`` pages ends it the same way; set another limit
    /// with ``PageSequence/limited(toPages:)``.
    public func pages<R: APIRequest>(
        _ first: R,
        next: @escaping @Sendable (_ request: R, _ response: Response<R.Response>) throws -> R?
    ) -> PageSequence<R.Response> {
        PageSequence(first: step(first, visited: nil, depth: 0, next: next))
    }

    /// The pages one iteration has fetched, as SHA-256 digests of what identifies them, with
    /// the depth each was first seen at: a fixed 64 bytes a page however long its URL (a
    /// cursor of kilobytes), shared by the iteration's steps rather than copied into each
    /// (which cost time quadratic in the number of pages).
    private final class VisitedPages: Sendable {
        private let depths = Locked([String: Int]())
        /// Records `key` at `depth`; `false` when an earlier page of the chain had it (a cycle).
        /// The same depth again is no cycle: a copy of the iterator fetching that page again
        /// (a retry after an error).
        func insert(_ key: String, depth: Int) -> Bool {
            let digest = SHA256.hex(key)
            return depths.withLock { depths in
                if let seen = depths[digest] { return seen >= depth }
                depths[digest] = depth
                return true
            }
        }
        var count: Int { depths.withLock { $0.count } }
    }

    /// A page's step; `visited` is `nil` for the first one, which starts a new set for each
    /// iteration of the sequence.
    private func step<R: APIRequest>(
        _ request: R,
        visited: VisitedPages?,
        depth: Int,
        next: @escaping @Sendable (R, Response<R.Response>) throws -> R?
    ) -> PageSequence<R.Response>.Step {
        let prepared = try? prepare(request)
        let head = prepared?.0
        let summary = head.map { self.summary(of: $0, operationName: request.options.operationName) }
        return PageSequence.Step(summary: summary) { [self] in
            let visited = visited ?? VisitedPages()
            if let head, let summary {
                // A cursor may travel in the body (GraphQL, `search_after`): the body is part of
                // what identifies a page. A body that cannot be read again is never compared.
                var key = "\(head.method.rawValue) \(head.urlString)"
                // …and so may a header (Azure's `x-ms-continuation`): the request's own fields too.
                for field in head.headerFields { key += "\n\(field.name.canonicalName): \(field.value)" }
                if let body = prepared?.1 {
                    let bytes = try? await BodyReading.replayableBytes(body, limit: BodyReading.errorPrefixLimit)
                    key += bytes.flatMap { $0 }.map { data -> String in
                        var hasher = Hasher()   // over every byte (Data's own hash reads only a prefix)
                        data.withUnsafeBytes { hasher.combine(bytes: $0) }
                        return " body:\(hasher.finalize())"
                    } ?? " unreadable body:\(visited.count)"
                }
                guard visited.insert(key, depth: depth) else {
                    throw APIError.network(request: summary, underlying: PaginationError(
                        reason: "the server led back to a page already fetched (after \(visited.count) pages): a pagination cycle", url: summary.url))
                }
            }
            let response = try await self.response(for: request)
            let following: R?
            do {
                following = try next(request, response)
            } catch {
                // The page arrived; the error is about what comes after it.
                return (response.value, PageSequence.Step(failsOnly: true) { throw error })
            }
            guard let following else { return (response.value, nil) }
            return (response.value, self.step(following, visited: visited, depth: depth + 1, next: next))
        }
    }

    /// Pages of an API that numbers its pages (`?page=2`), until ``NumberedPage/totalPages``.
    ///
    /// The first request is sent as it is (add the page parameter yourself to start elsewhere);
    /// each following one sets `pageParameter` to the previous page's number plus one. It stops
    /// after the page whose number reaches `totalPages`. A server that answers a lower page than
    /// the one asked for (it ignores the parameter) ends the sequence with a ``PaginationError``
    /// after that page, rather than a quiet stop short of `totalPages`; so does a first request
    /// that carries `pageParameter` in its path (`"/users?page=3"`), where the next page's number
    /// could not replace it — before anything is sent.
    ///
    /// ```swift
    /// for try await page in client.pages(Request<Page<User>>(path: "/users").query("per_page", "50")) {
    ///     print(page.page, "of", page.totalPages, page.results.count)
    /// }
    /// ```
    public func pages<R: APIRequest>(_ first: R, pageParameter: String = "page") -> PageSequence<R.Response>
    where R.Response: NumberedPage {
        let modified = ModifiedRequest(first)   // `queryItems` and `queryParameters` folded into `query`
        if let head = try? prepare(first).0,
           Self.count(of: pageParameter, inQueryOf: head.path ?? "") > modified.query.count(where: { $0.name == pageParameter }) {
            // Appended after the one already in the URL, the next page's number would be the
            // second of two: many servers read the first and answer the same page again.
            let summary = summary(of: head, operationName: first.options.operationName)
            let error = APIError.encodingFailed(request: summary, underlying: PaginationError(
                reason: "the first request carries '\(pageParameter)' in its path, where the next page's number cannot replace it; pass it with `.query(\"\(pageParameter)\", …)`",
                url: summary.url))
            return PageSequence(first: PageSequence.Step(summary: summary, failsOnly: true) { throw error })
        }
        return pages(modified) { request, response in
            let page = response.value
            guard page.page < page.totalPages else { return nil }
            let current = request.query.last { $0.name == pageParameter }.flatMap { $0.value.flatMap(Int.init) }
            if let current, page.page < current {
                // The server went backwards (it ignores the parameter): the page it sent is one
                // already seen; say so rather than stop quietly short of `totalPages`.
                throw APIError.network(request: response.request, underlying: PaginationError(
                    reason: "asked for page \(current) with '\(pageParameter)=\(current)', the server answered page \(page.page) (of \(page.totalPages)): it ignores the parameter",
                    url: response.request.url))
            }
            var following = request
            following.setQueryItem(pageParameter, String(page.page + 1))
            return following
        }
    }

    /// How many items of `target`'s query are named `name` (percent-decoded).
    private static func count(of name: String, inQueryOf target: String) -> Int {
        guard let mark = target.firstIndex(ofByte: UInt8(ascii: "?")) else { return 0 }
        return target[target.index(after: mark)...].split(separator: "&").count { item in
            let raw = String(item.prefix { $0 != "=" })
            return (raw.removingPercentEncoding ?? raw) == name
        }
    }

    /// Pages of an API that hands out a cursor for the next page (`?cursor=abc`).
    ///
    /// Each following request sets `cursorParameter` to what `nextCursor` reads from the
    /// previous page. It stops when there is no cursor, it is empty, or it repeats the one just
    /// used.
    ///
    /// ```swift
    /// struct Feed: Decodable, Sendable { var items: [Item]; var nextCursor: String? }
    /// let feed = client.pages(Request<Feed>(path: "/feed"), cursorParameter: "cursor") { $0.nextCursor }
    /// ```
    public func pages<R: APIRequest>(
        _ first: R,
        cursorParameter: String,
        nextCursor: @escaping @Sendable (R.Response) -> String?
    ) -> PageSequence<R.Response> {
        pages(ModifiedRequest(first)) { request, response in
            guard let cursor = nextCursor(response.value), !cursor.isEmpty else { return nil }
            if request.query.last(where: { $0.name == cursorParameter })?.value == cursor { return nil }
            var following = request
            following.setQueryItem(cursorParameter, cursor)
            return following
        }
    }

    /// Pages of an API that links to the next page in an RFC 8288 `Link` header
    /// (`Link: <https://api.example.com/items?page=3>; rel="next"`), as GitHub's does.
    ///
    /// The link (absolute or relative to the current page) replaces the request's URL and
    /// query. It stops when there is no link with the relation, or it points back to the
    /// current page. A link to another origin (scheme, host or port) is refused with an
    /// ``APIError/Kind/invalidURL`` error, so credentials are never sent where the API did not
    /// live.
    ///
    /// ```swift
    /// for try await repos in client.pages(Request<[Repository]>(path: "/user/repos"), followingLink: "next") { ... }
    /// ```
    public func pages<R: APIRequest>(_ first: R, followingLink relation: String = "next") -> PageSequence<R.Response> {
        let relation = relation.lowercased()
        let baseParameterNames = Set(configuration.baseParameters.map(\.name))
        let queryNames = Redaction.QueryNames.standard.adding(configuration.sensitiveQueryNames)
        return pages(ModifiedRequest(first)) { [self] request, response in
            guard let link = WebLink.parse(response.response.headerFields).first(where: { $0.relations.contains(relation) }) else {
                return nil
            }
            // The URL as sent (the response's request summary has its secrets redacted).
            let (head, _) = try self.prepare(request)
            guard let current = URL(string: head.urlString),
                  let target = URL(string: link.target, relativeTo: current)?.absoluteURL
            else {
                throw APIError.invalidURL(queryNames.redact(url: link.target), reason: "the Link header's target is not a URL")
            }
            guard target.scheme?.lowercased() == current.scheme?.lowercased(),
                  target.host?.lowercased() == current.host?.lowercased(),
                  Self.effectivePort(of: target) == Self.effectivePort(of: current)
            else {
                throw APIError.invalidURL(queryNames.redact(url: target.absoluteString),
                                          reason: "the next-page link leaves the origin of \(current.scheme ?? "")://\(current.host ?? "")")
            }
            if target.absoluteString == current.absoluteString { return nil }
            var following = request
            // Only when the builder adds them again: a request that opted out keeps what it set.
            let echoed = request.options.includeBaseParameters ? baseParameterNames : []
            // A server usually echoes the query it was sent, base parameters included: the
            // builder adds the configuration's again, so they are not sent twice (the request
            // keeps ``RequestOptions/includeBaseParameters``, which middleware such as
            // ``BaseParametersMiddleware`` read too).
            following.path = RequestPath(verbatim: RequestTarget.removingQueryItems(named: echoed, from: target.absoluteString))
            following.pathParameters = [:]
            following.query = []
            return following
        }
    }

    /// The URL's port, or its scheme's default (`https://host:443/` and `https://host/` are one
    /// origin).
    private static func effectivePort(of url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "https": return 443
        case "http": return 80
        default: return nil
        }
    }
}
