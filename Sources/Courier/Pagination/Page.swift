/// A response that knows its page number and how many pages there are.
///
/// Conform your page type to use ``APIClient/pages(_:pageParameter:)``:
///
/// ```swift
/// struct UserPage: Decodable, NumberedPage {
///     var page: Int
///     var totalPages: Int
///     var users: [User]
/// }
/// ```
public protocol NumberedPage: Sendable {
    /// This page's number.
    var page: Int { get }
    /// How many pages there are.
    var totalPages: Int { get }
}

/// A page of results in the common `page` / `results` / `total_pages` / `total_results` shape.
///
/// ```json
/// {"page": 1, "results": [...], "total_pages": 5, "total_results": 97}
/// ```
///
/// ```swift
/// for try await page in client.pages(Request<Page<User>>(path: "/users")) {
///     show(page.results)
/// }
/// ```
public struct Page<Item: Sendable>: NumberedPage {
    /// This page's number (from 1, usually).
    public var page: Int
    /// The items on this page.
    public var results: [Item]
    /// How many pages there are.
    public var totalPages: Int
    /// How many items there are in all pages.
    public var totalResults: Int

    /// Creates a page.
    public init(page: Int, results: [Item], totalPages: Int, totalResults: Int) {
        self.page = page
        self.results = results
        self.totalPages = totalPages
        self.totalResults = totalResults
    }
}

extension Page: Equatable where Item: Equatable {}
extension Page: Hashable where Item: Hashable {}

extension Page: Codable where Item: Codable {
    enum CodingKeys: String, CodingKey {
        case page, results
        case totalPages = "total_pages"
        case totalResults = "total_results"
    }
}
