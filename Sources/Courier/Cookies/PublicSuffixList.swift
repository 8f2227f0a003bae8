import Foundation

/// The public suffixes a ``CookieJar`` refuses to set cookies for: `com`, `co.uk`, `github.io` —
/// domains under which unrelated parties register names, so a cookie for the suffix would be
/// sent to all of them (RFC 6265 §5.3 step 5).
///
/// Courier does not bundle the whole Public Suffix List (about 10,000 rules that change every
/// week). The default, ``common``, is **partial**: every top-level domain is a public suffix (the
/// list's implicit `*` rule — `Domain=com`, `Domain=example` are refused), plus an embedded
/// selection of the most used multi-label suffixes (`co.uk`, `com.au`, `co.jp`, `com.br`…) and
/// shared hosting domains (`github.io`, `herokuapp.com`, `vercel.app`…); see
/// ``commonRules``. A domain missing from it is treated as registrable. To apply the full
/// list, load a copy your app ships or one the system has (Debian's `publicsuffix` package puts
/// it at `/usr/share/publicsuffix/public_suffix_list.dat`):
///
/// ```swift
/// let list = try PublicSuffixList(contentsOf: URL(fileURLWithPath: "/usr/share/publicsuffix/public_suffix_list.dat"))
/// let jar = CookieJar(publicSuffixes: list)
/// ```
///
/// Rules follow the list's format (publicsuffix.org/list): one per line, `//` comments,
/// wildcards (`*.ck`) and exceptions (`!www.ck`); the prevailing rule is an exception, else the
/// longest match, else `*`.
public struct PublicSuffixList: Sendable {
    private let rules: Set<String>
    private let wildcards: Set<String>
    private let exceptions: Set<String>

    /// Reads rules in the Public Suffix List format. Lines that are empty, comments or not
    /// ASCII (the list's Unicode entries; hosts reach Courier in their `xn--` form, which the
    /// list also has) are skipped.
    public init(rules text: String) {
        var rules = Set<String>(), wildcards = Set<String>(), exceptions = Set<String>()
        for line in text.split(whereSeparator: \.isNewline) {
            guard let rule = line.split(whereSeparator: \.isWhitespace).first, !rule.hasPrefix("//"),
                  rule.utf8.allSatisfy({ $0 < 0x80 }) else { continue }
            let lowered = rule.lowercased()
            if lowered.hasPrefix("!") {
                exceptions.insert(String(lowered.dropFirst()))
            } else if lowered.hasPrefix("*.") {
                wildcards.insert(String(lowered.dropFirst(2)))
            } else {
                rules.insert(lowered)
            }
        }
        self.rules = rules
        self.wildcards = wildcards
        self.exceptions = exceptions
    }

    /// Reads a Public Suffix List file (`public_suffix_list.dat`).
    ///
    /// - Throws: the error reading the file; a file that is not the list's format yields a list
    ///   with fewer rules, never an error.
    public init(contentsOf file: URL) throws {
        let data = try Data(contentsOf: file)
        self.init(rules: String(decoding: data, as: UTF8.self))
    }

    /// The embedded, partial list (see ``PublicSuffixList``).
    public static let common = PublicSuffixList(rules: commonRules)

    /// Whether `domain` (lowercased, no trailing dot) is a public suffix: a top-level domain or
    /// a rule of the list.
    public func isPublicSuffix(_ domain: String) -> Bool {
        publicSuffix(of: domain) == domain
    }

    /// The registrable domain of `host` — its public suffix plus one label (`example.co.uk` for
    /// `www.example.co.uk`) — or `nil` when `host` is itself a public suffix.
    public func registrableDomain(of host: String) -> String? {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let suffixLength = publicSuffixLabelCount(labels)
        guard labels.count > suffixLength else { return nil }
        return labels.suffix(suffixLength + 1).joined(separator: ".")
    }

    /// The public suffix of `domain` (`co.uk` for `www.example.co.uk`, `com` for `example.com`).
    public func publicSuffix(of domain: String) -> String {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.suffix(publicSuffixLabelCount(labels)).joined(separator: ".")
    }

    /// How many trailing labels of `labels` form the public suffix (at least one).
    private func publicSuffixLabelCount(_ labels: [Substring]) -> Int {
        let count = labels.count
        guard count > 1 else { return count }
        func suffix(from index: Int) -> String { labels[index...].joined(separator: ".") }
        // An exception rule prevails: its match minus its leftmost label is the suffix.
        if !exceptions.isEmpty {
            for index in 0..<(count - 1) where exceptions.contains(suffix(from: index)) {
                return count - index - 1
            }
        }
        // Else the longest match of a rule or a wildcard, else the implicit `*`.
        for index in 0..<count {
            if rules.contains(suffix(from: index)) { return count - index }
            if index + 1 < count, wildcards.contains(suffix(from: index + 1)) { return count - index }
        }
        return 1
    }
}
