import Foundation

/// The public suffixes a ``CookieJar`` refuses to set cookies for: `com`, `co.uk`, `github.io`,
/// `s3.amazonaws.com` — domains under which unrelated parties register names, so a cookie for
/// the suffix would be sent to all of them (RFC 6265 §5.3 step 5).
///
/// The default, ``full``, is the whole Public Suffix List (publicsuffix.org, Mozilla Public
/// License 2.0), compiled into Courier: its ICANN section (top-level domains and their
/// registries' second levels: `co.uk`, `com.au`, `*.kobe.jp`…) and its private section (shared
/// hosting, where each name under the suffix is another customer's: `s3.amazonaws.com`,
/// `fly.dev`, `onrender.com`, `a.run.app`, `r2.dev`, `github.io`…) — about 9,500 rules. It is
/// the snapshot named in `PublicSuffixList+Full.swift` (Debian's `publicsuffix` package of
/// February 2023); the list changes every week, so to apply a newer copy, load one your app
/// ships or the system keeps up to date (Debian's `publicsuffix` package puts it at
/// `/usr/share/publicsuffix/public_suffix_list.dat`; check its date, as a system's copy can be
/// older than Courier's):
///
/// ```swift
/// let list = try PublicSuffixList(contentsOf: URL(fileURLWithPath: "/usr/share/publicsuffix/public_suffix_list.dat"))
/// let jar = CookieJar(publicSuffixes: list)
/// ```
///
/// ``common`` is the small partial list that was the default before: every top-level domain,
/// about 160 multi-label suffixes and hosting domains; a domain missing from it is treated as
/// registrable.
///
/// Rules follow the list's format (publicsuffix.org/list): one per line, read up to the first
/// whitespace; `//` comments; wildcards (`*.ck`) and exceptions (`!www.ck`); the prevailing
/// rule is an exception, else the longest match, else the implicit `*` (every top-level domain
/// is a public suffix). Internationalised rules, which the list writes in Unicode (`公司.cn`),
/// match in that form and in the ASCII form hosts are sent in (`xn--55qx5d.cn`).
public struct PublicSuffixList: Sendable {
    private let rules: Set<String>
    private let wildcards: Set<String>
    private let exceptions: Set<String>

    /// Reads rules in the Public Suffix List format. Lines that are empty or comments are
    /// skipped; a rule is lowercased, and an internationalised one is kept in its Unicode form
    /// and its `xn--` form.
    public init(rules text: String) {
        // Over the UTF-8 bytes in place, not by `Character` or through an array of lines: the
        // full list is ≈ 140 KB, and breaking it into grapheme clusters or slices would be most
        // of the cost of reading it. (A native string, a literal included, is contiguous UTF-8.)
        let parsed = text.utf8.withContiguousStorageIfAvailable { Self.parse($0) } ?? Self.parse(Array(text.utf8))
        self.rules = parsed.rules
        self.wildcards = parsed.wildcards
        self.exceptions = parsed.exceptions
    }

    /// The rules, the wildcards' domains (`ck` for `*.ck`) and the exceptions' domains
    /// (`www.ck` for `!www.ck`) of the list's text.
    private static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> (rules: Set<String>, wildcards: Set<String>, exceptions: Set<String>) {
        var rules = Set<String>(), wildcards = Set<String>(), exceptions = Set<String>()
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0B || byte == 0x0C }
        var lineStart = bytes.startIndex
        while lineStart != bytes.endIndex {
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            let line = bytes[lineStart..<lineEnd]
            lineStart = lineEnd == bytes.endIndex ? lineEnd : bytes.index(after: lineEnd)
            // A rule is the line up to its first whitespace (the format's own rule).
            let rule = line.drop(while: isSpace).prefix { !isSpace($0) }
            guard !rule.isEmpty, !rule.starts(with: "//".utf8) else { continue }
            if rule.first == UInt8(ascii: "!") {
                Self.insert(rule.dropFirst(), into: &exceptions)
            } else if rule.starts(with: "*.".utf8) {
                Self.insert(rule.dropFirst(2), into: &wildcards)
            } else {
                Self.insert(rule, into: &rules)
            }
        }
        return (rules, wildcards, exceptions)
    }

    /// Inserts a rule's domain in the forms it is matched in: lowercased, as hosts are
    /// compared; for an internationalised one also its ASCII form (``Punycode``), in which
    /// hosts are sent.
    private static func insert<Name: Collection<UInt8>>(_ name: Name, into set: inout Set<String>) {
        guard !name.isEmpty else { return }
        let text = String(decoding: name, as: UTF8.self)
        guard name.contains(where: { $0 >= 0x80 }) else {
            // The list is lowercase already: lowercasing (another string) only when needed.
            set.insert(name.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) ? text.lowercased() : text)
            return
        }
        let lowered = text.lowercased()
        set.insert(lowered)
        if let ascii = Punycode.asciiDomain(lowered) { set.insert(ascii) }
    }

    /// Reads a Public Suffix List file (`public_suffix_list.dat`).
    ///
    /// - Throws: the error reading the file; a file that is not the list's format yields a list
    ///   with fewer rules, never an error.
    public init(contentsOf file: URL) throws {
        let data = try Data(contentsOf: file)
        self.init(rules: String(decoding: data, as: UTF8.self))
    }

    /// The whole Public Suffix List, ICANN and private sections, as of the snapshot compiled
    /// into Courier (see ``PublicSuffixList``): the default of every ``CookieJar``.
    ///
    /// Parsed once per process, the first time it is used — by the first jar created with the
    /// default — and kept for the life of the process: about 10,700 strings (the rules, and the
    /// `xn--` forms of the internationalised ones) in three sets, shared by every jar (a list is
    /// a value whose copies share their storage). Compiled in rather than read from a SwiftPM
    /// resource: `Bundle.module` ends the process when the resource bundle is not beside the
    /// executable, as for a Linux server deployed as its binary alone.
    public static let full = PublicSuffixList(rules: fullRules)

    /// The embedded, partial list that was the default before ``full`` (see
    /// ``PublicSuffixList``): every top-level domain and ``commonRules``.
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
