import Foundation

extension InterceptorMiddleware.PathMatcher {
    /// The same as ``regex(matchingWholePath:)``.
    @available(*, deprecated, renamed: "regex(matchingWholePath:)", message: "say which: regex(matchingWholePath:) or regex(matchingAnywhereInURL:)")
    public static func regex(_ pattern: String) throws -> InterceptorMiddleware.PathMatcher {
        try regex(matchingWholePath: pattern)
    }
}
