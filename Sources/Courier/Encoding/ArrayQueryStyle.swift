/// How arrays are written in a query string.
public enum ArrayQueryStyle: Sendable, Hashable {
    /// `tag=a&tag=b` (the default).
    case repeatedKeys
    /// `tag[]=a&tag[]=b`.
    case brackets
    /// `tag=a,b`.
    case commaSeparated
}
