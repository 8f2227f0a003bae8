/// An async sequence of pages: each element is one decoded response; the next request is sent
/// only when the next element is asked for.
///
/// It ends after the last page (as the pagination strategy tells), throws the first error as an
/// ``APIError``, and stops when the task is cancelled. It fetches at most
/// ``defaultPageLimit`` pages unless ``limited(toPages:)`` says otherwise: a server that offers
/// more ends it with a ``PaginationError``, so a hostile or broken server that links to new
/// pages for ever cannot keep a loop (or ``collect(maxPages:)``'s array) going without end.
///
/// ```swift
/// for try await page in client.pages(Request<Page<User>>(path: "/users")) {
///     users += page.results
/// }
/// ```
public struct PageSequence<Element: Sendable>: AsyncSequence, Sendable {
    /// Fetches one page and says how to fetch the following one.
    struct Step: Sendable {
        /// The request this step sends, when known (for errors about it).
        var summary: RequestSummary? = nil
        /// Whether the step only throws the error of the page before (a next-page request that
        /// could not be made): it fetches nothing, so the page limit does not apply to it.
        var failsOnly = false
        let fetch: @Sendable () async throws -> (Element, Step?)
    }

    let first: Step
    /// The limit set with ``limited(toPages:)``; `nil` for ``defaultPageLimit``.
    let pageLimit: Int?

    init(first: Step, pageLimit: Int? = nil) {
        self.first = first
        self.pageLimit = pageLimit
    }

    /// How many pages a sequence fetches at most when ``limited(toPages:)`` does not say:
    /// 10,000 (a million items at 100 a page).
    public static var defaultPageLimit: Int { 10_000 }

    /// Fetches one page per call to `next()`.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var step: Step?
        let limit: Int
        /// Whether the limit is ``PageSequence/defaultPageLimit`` (for the error's words).
        let limitIsDefault: Bool
        var fetched = 0

        /// The next page, or `nil` after the last one.
        public mutating func next() async throws -> Element? {
            guard let current = step else { return nil }
            step = nil
            try Task.checkCancellation()
            guard fetched < limit || current.failsOnly else { throw Self.limitReached(current, limit: limit, isDefault: limitIsDefault) }
            let (page, following) = try await current.fetch()
            fetched += 1
            step = following
            return page
        }

        private static func limitReached(_ step: Step, limit: Int, isDefault: Bool) -> APIError {
            let reason = isDefault
                ? "the server offers more than \(limit) pages, the default limit (raise it with limited(toPages:))"
                : "the server offers more than \(limit) pages, the cap set with limited(toPages:)"
            let error = PaginationError(reason: reason, url: step.summary?.url)
            guard let summary = step.summary else { return APIError.unknown(request: nil, underlying: error) }
            return APIError.network(request: summary, underlying: error)
        }
    }

    /// Starts from the first page; each iterator sends its own requests.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(step: first, limit: pageLimit ?? Self.defaultPageLimit, limitIsDefault: pageLimit == nil)
    }

    /// The same pages, at most `maxPages` of them: when the server offers a page after the
    /// last one allowed, the sequence throws an ``APIError/Kind/network`` error with a
    /// ``PaginationError`` rather than ending as if the list were complete.
    ///
    /// It replaces the limit the sequence had (the last call wins), so it also raises
    /// ``defaultPageLimit``; `.max` takes the limit away.
    ///
    /// ```swift
    /// for try await page in client.pages(Request<Feed>(path: "/feed"), followingLink: "next").limited(toPages: 500) { … }
    /// ```
    public func limited(toPages maxPages: Int) -> PageSequence {
        PageSequence(first: first, pageLimit: Swift.max(0, maxPages))
    }

    /// Every page, in order, collected into an array: at most `maxPages`, after which it stops
    /// without an error.
    ///
    /// The sequence's page limit still applies: with the default `maxPages`, a server that
    /// offers more than ``defaultPageLimit`` pages (or the limit set with
    /// ``limited(toPages:)``) makes it throw a ``PaginationError``. A `maxPages` above the
    /// default limit raises it, unless ``limited(toPages:)`` set one.
    public func collect(maxPages: Int = .max) async throws -> [Element] {
        guard maxPages > 0 else { return [] }
        let sequence = pageLimit == nil && maxPages != .max && maxPages > Self.defaultPageLimit ? limited(toPages: maxPages) : self
        var pages: [Element] = []
        for try await page in sequence {
            pages.append(page)
            if pages.count >= maxPages { break }
        }
        return pages
    }
}
