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

    /// Every page, in order, collected into an array (at most `maxPages`).
    public func collect(maxPages: Int = .max) async throws -> [Element] {
        var pages: [Element] = []
        for try await page in self {
            pages.append(page)
            if pages.count >= maxPages { break }
        }
        return pages
    }
}
