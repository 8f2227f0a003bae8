/// An async sequence of pages: each element is one decoded response; the next request is sent
/// only when the next element is asked for.
///
/// It ends after the last page (as the pagination strategy tells), throws the first error as an
/// ``APIError``, and stops when the task is cancelled. Use `prefix(_:)` to cap the number of pages.
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
        let fetch: @Sendable () async throws -> (Element, Step?)
    }

    let first: Step

    /// Fetches one page per call to `next()`.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var step: Step?

        /// The next page, or `nil` after the last one.
        public mutating func next() async throws -> Element? {
            guard let current = step else { return nil }
            step = nil
            try Task.checkCancellation()
            let (page, following) = try await current.fetch()
            step = following
            return page
        }
    }

    /// Starts from the first page; each iterator sends its own requests.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(step: first) }

    /// The same pages, at most `maxPages` of them: when the server offers a page after the
    /// last one allowed, the sequence throws an ``APIError/Kind/network`` error with a
    /// ``PaginationError`` rather than ending as if the list were complete.
    ///
    /// ```swift
    /// for try await page in client.pages(Request<Feed>(path: "/feed"), followingLink: "next").limited(toPages: 500) { … }
    /// ```
    public func limited(toPages maxPages: Int) -> PageSequence {
        let cap = Swift.max(0, maxPages)
        return PageSequence(first: Self.capped(first, remaining: cap, cap: cap))
    }

    private static func capped(_ step: Step, remaining: Int, cap: Int) -> Step {
        Step(summary: step.summary) {
            guard remaining > 0 else {
                let error = PaginationError(reason: "the server offers more than \(cap) pages, the cap set with limited(toPages:)", url: step.summary?.url)
                guard let summary = step.summary else { throw APIError.unknown(request: nil, underlying: error) }
                throw APIError.network(request: summary, underlying: error)
            }
            let (page, following) = try await step.fetch()
            return (page, following.map { capped($0, remaining: remaining - 1, cap: cap) })
        }
    }

    /// Every page, in order, collected into an array (at most `maxPages`).
    public func collect(maxPages: Int = .max) async throws -> [Element] {
        guard maxPages > 0 else { return [] }
        var pages: [Element] = []
        for try await page in self {
            pages.append(page)
            if pages.count >= maxPages { break }
        }
        return pages
    }
}
