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

    /// Decodes `page`, `results`, `total_pages` and `total_results` — also through a decoder
    /// that converts snake-case keys (``APIConfiguration/useSnakeCaseKeys()``), which presents
    /// them as `totalPages` and `totalResults`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyPageKey.self)
        func key(_ snake: String, _ camel: String) -> AnyPageKey {
            container.contains(AnyPageKey(snake)) ? AnyPageKey(snake) : AnyPageKey(camel)
        }
        page = try container.decode(Int.self, forKey: AnyPageKey("page"))
        results = try container.decode([Item].self, forKey: AnyPageKey("results"))
        totalPages = try container.decode(Int.self, forKey: key("total_pages", "totalPages"))
        totalResults = try container.decode(Int.self, forKey: key("total_results", "totalResults"))
    }
}

/// A key of a page document, by name.
private struct AnyPageKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
