import Foundation

extension Array where Element == URLQueryItem {
    /// Query items from ordered pairs; `nil` values are left out and arrays follow `arrays`.
    ///
    /// ```swift
    /// var query: [URLQueryItem] {
    ///     .query([("page", page), ("q", search), ("tag", ["swift", "http"])], arrays: .brackets)
    /// }
    /// ```
    public static func query(_ pairs: [(String, any QueryValue)], arrays: ArrayQueryStyle = .repeatedKeys) -> [URLQueryItem] {
        var items: [URLQueryItem] = []
        for (name, value) in pairs {
            let strings = value.queryStrings
            if !value.isQueryList {
                if let first = strings.first { items.append(URLQueryItem(name: name, value: first)) }
                continue
            }
            switch arrays {
            case .repeatedKeys: items += strings.map { URLQueryItem(name: name, value: $0) }
            case .brackets: items += strings.map { URLQueryItem(name: name + "[]", value: $0) }
            case .commaSeparated: if !strings.isEmpty { items.append(URLQueryItem(name: name, value: strings.joined(separator: ","))) }
            }
        }
        return items
    }
}
