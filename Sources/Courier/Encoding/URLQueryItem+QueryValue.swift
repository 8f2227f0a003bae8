import Foundation

extension URLQueryItem {
    /// A query item from any ``QueryValue`` — an `Int`, a `Bool`, a `Date`, an optional — so
    /// that a `[URLQueryItem]` literal can mix value types without `String(…)` casts:
    ///
    /// ```swift
    /// var query: [URLQueryItem] {
    ///     [URLQueryItem(name: "page", value: page),          // Int
    ///      URLQueryItem(name: "q", value: search),           // String?
    ///      URLQueryItem(name: "archived", value: false)]     // Bool
    /// }
    /// ```
    ///
    /// A `nil` value gives an item without a value (left out of the request); a list is written
    /// comma-separated (use `[URLQueryItem].query(_:arrays:)` for repeated keys or brackets).
    public init(name: String, value: some QueryValue) {
        let strings = value.queryStrings
        // Typed `String?` so that Foundation's initializer is called, not this one again (a
        // `String` argument binds this generic one more exactly than `String?`).
        let text: String?
        switch strings.count {
        case 0: text = nil
        case 1: text = strings[0]
        default: text = strings.joined(separator: ",")
        }
        self.init(name: name, value: text)
    }
}
