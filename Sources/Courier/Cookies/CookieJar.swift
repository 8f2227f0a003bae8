import Foundation
import HTTPTypes
import Logging

/// Courier's cookie storage (RFC 6265): stores the cookies servers set and sends them back on
/// the requests RFC 6265 allows, the same way over every transport.
///
/// Give each client its own jar — that is the isolation the jar offers: two clients (two users
/// of a server process) never see each other's cookies unless you hand them the same jar.
///
/// ```swift
/// var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
/// configuration.cookieJar = CookieJar()                  // in memory
/// // or: CookieJar(persistingTo: appSupport.appendingPathComponent("cookies.json"))
/// let client = APIClient(configuration: configuration, transport: AsyncHTTPClientTransport())
/// ```
///
/// The client consults the jar on every hop of a request — every redirect and every retry —
/// with that hop's URL, and stores the `Set-Cookie` headers of every response, redirects
/// included. The rules:
/// - **Domain and path** (§5.1.3, §5.1.4): a cookie without `Domain` is host-only; with
///   `Domain`, it goes to that domain and its subdomains. A `Domain` the request host is not in,
///   a public suffix (`Domain=com`, `Domain=co.uk`, `Domain=s3.amazonaws.com`; the whole Public
///   Suffix List by default, see ``PublicSuffixList``), or a domain above the host's registrable
///   domain (`Domain=amazonaws.com` from `bucket.s3.amazonaws.com`, as browsers refuse it) is
///   refused. IP-address hosts only get host-only cookies.
/// - **Secure**: sent only over https — and over http to a loopback host (`localhost`,
///   `127.0.0.0/8`, `::1`), which browsers also count as secure. A `Secure` cookie set over
///   plain http is refused, and plain http cannot replace a `Secure` cookie.
///   `__Secure-` and `__Host-` prefixes are enforced.
/// - **HttpOnly** is stored and the cookie is sent (Courier is not a browser: no script to hide
///   it from). **SameSite** is stored, not applied (no browsing context).
/// - **Expiry**: `Max-Age` wins over `Expires`; zero or negative expires the cookie at once;
///   lifetimes are cut to ``Limits/maxLifetime`` (400 days). Expired cookies are never sent.
/// - **Bounds** (``Limits``): 4,096 bytes per cookie, 180 per site, 3,000 in all, as browsers.
/// - A `Cookie` header the request sets itself is sent first, as written; the jar adds its
///   cookies for the URL to the same header, except those whose name the request already set.
///   That header is never stored, and it is removed when a redirect leaves the origin.
///
/// Cookie values never appear in Courier's logs or recordings: `Cookie` and `Set-Cookie` are
/// redacted (``Redaction/sensitiveHeaders``), and ``Cookie/description`` hides the value.
///
/// Thread-safe: one lock guards the cookies (Courier still supports macOS 13, before
/// `Synchronization.Mutex`).
public final class CookieJar: Sendable {
    /// The jar's limits.
    public let limits: Limits
    /// The public suffixes the jar refuses cookies for.
    public let publicSuffixes: PublicSuffixList
    /// The file the jar keeps its cookies in, if any.
    public var fileURL: URL? { writer?.file.url }

    private let store: Locked<CookieStore>
    private let clock: any TimeSource
    private let logger: Logger
    /// Writes the cookies to the jar's file, if it has one, off the caller's thread.
    private let writer: CookieFileWriter?
    private let persistsSessionCookies: Bool

    /// Creates an empty jar in memory.
    ///
    /// - Parameters:
    ///   - limits: how many cookies the jar holds (browsers' limits by default).
    ///   - publicSuffixes: the suffixes to refuse cookies for: by default the whole Public Suffix
    ///     List compiled into Courier (``PublicSuffixList/full``), read once per process when the
    ///     first jar is made with it.
    ///   - clock: the wall clock expiry is read from (tests inject one).
    ///   - logger: where refused cookies (at `debug`) and file problems (at `warning`) are reported.
    public init(
        limits: Limits = Limits(), publicSuffixes: PublicSuffixList = .full,
        clock: any TimeSource = .system, logger: Logger = APIConfiguration.silentLogger
    ) {
        self.limits = limits
        self.publicSuffixes = publicSuffixes
        self.store = Locked(CookieStore(limits: limits, publicSuffixes: publicSuffixes))
        self.clock = clock
        self.logger = logger
        self.writer = nil
        self.persistsSessionCookies = false
    }

    /// Creates a jar kept in `file`: the cookies there are loaded now (checked again as if a
    /// server had sent them; expired ones dropped), and the file is replaced atomically,
    /// owner-only (`0600`), whenever the cookies change.
    ///
    /// The file is written on a queue of the jar's own, a moment after a change: a response
    /// that sets a cookie never waits for the disk, and changes that arrive during a write are
    /// saved together by the next one. Call ``flush()`` where the cookies must be on disk
    /// before going on — when an app moves to the background, before a process exits.
    ///
    /// A file that cannot be read, is truncated or is not a cookie file gives an empty jar and a
    /// `warning` in the log — never an error or a crash — and is replaced on the next change.
    /// So does a file the jar does not trust, which it does not read: a symbolic link (not
    /// followed), a FIFO (opened without waiting for a writer), a directory or a device,
    /// another user's file, or one that group or others can write. A file that cannot be
    /// written is logged too; requests go on.
    ///
    /// - Parameters:
    ///   - file: the JSON file; its directory must exist.
    ///   - persistsSessionCookies: whether cookies without an expiry are saved too. Default
    ///     `false`, as browsers: a session cookie ends with the process.
    ///   - limits: how many cookies the jar holds (browsers' limits by default).
    ///   - publicSuffixes: the suffixes to refuse cookies for: by default the whole Public Suffix
    ///     List compiled into Courier (``PublicSuffixList/full``), read once per process when the
    ///     first jar is made with it.
    ///   - clock: the wall clock expiry is read from (tests inject one).
    ///   - logger: where refused cookies (at `debug`) and file problems (at `warning`) are reported.
    public convenience init(
        persistingTo file: URL, persistsSessionCookies: Bool = false, limits: Limits = Limits(),
        publicSuffixes: PublicSuffixList = .full, clock: any TimeSource = .system,
        logger: Logger = APIConfiguration.silentLogger
    ) {
        self.init(file: CookieFile(url: file, limits: limits), persistsSessionCookies: persistsSessionCookies,
                  limits: limits, publicSuffixes: publicSuffixes, clock: clock, logger: logger)
    }

    init(
        file: CookieFile, persistsSessionCookies: Bool, limits: Limits, publicSuffixes: PublicSuffixList,
        clock: any TimeSource, logger: Logger
    ) {
        self.limits = limits
        self.publicSuffixes = publicSuffixes
        self.clock = clock
        self.logger = logger
        self.writer = CookieFileWriter(file: file)
        self.persistsSessionCookies = persistsSessionCookies
        var store = CookieStore(limits: limits, publicSuffixes: publicSuffixes)
        let now = clock.now()
        var dropped = 0
        for cookie in file.load(logger: logger) where !store.restore(cookie, now: now) { dropped += 1 }
        if dropped > 0 { logger.debug("Cookie file: \(dropped) expired or invalid cookies dropped", metadata: ["file.path": "\(file.url.path)"]) }
        self.store = Locked(store)
    }

    // MARK: - Reading

    /// Every cookie in the jar that has not expired, sorted by domain, path and name.
    public var cookies: [Cookie] {
        let now = clock.now()
        return store.withLock { $0.all(at: now) }.sorted { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }
    }

    /// The cookies a request to `url` would carry, in the order they would be sent (longest
    /// path first). `[]` for a URL that is not http or https.
    public func cookies(for url: URL) -> [Cookie] {
        guard let target = CookieRequestURL(url) else { return [] }
        let now = clock.now()
        return store.withLock { $0.cookies(for: target, now: now, touching: false) }
    }

    // MARK: - Writing

    /// Stores a cookie as if a response from `url` had set it with this `Set-Cookie` value,
    /// under the same rules (a cookie for a domain `url` is not in is refused).
    ///
    /// - Returns: whether the jar stored it (or removed the cookie it names, for an expired one).
    @discardableResult
    public func setCookie(_ setCookie: String, for url: URL) -> Bool {
        guard let target = CookieRequestURL(url) else { return false }
        return receive([setCookie], from: target, logger: logger) > 0
    }

    /// Removes every cookie.
    public func removeAll() {
        let revision = store.withLock { store in
            store.removeAll()
            return store.revision
        }
        persist(revision: revision)
    }

    /// Removes the cookies of `domain` and of all its subdomains: `example.com` removes those
    /// of `example.com`, `api.example.com` and `.example.com`, not those of `myexample.com`.
    public func removeCookies(forDomain domain: String) {
        let revision = store.withLock { store in
            store.remove(domain: domain)
            return store.revision
        }
        persist(revision: revision)
    }

    // MARK: - The client's side

    /// The `Cookie` header value for a request to `url`, `nil` when no cookie applies; marks
    /// the cookies used unless `touching` is false (a look that sends nothing).
    /// `skipping` names cookies the request already set itself.
    func cookieHeader(for url: CookieRequestURL, skipping names: Set<Substring> = [], touching: Bool = true) -> String? {
        let now = clock.now()
        let cookies = store.withLock { $0.cookies(for: url, now: now, touching: touching) }
        var header = ""
        for cookie in cookies where names.isEmpty || !names.contains(Substring(cookie.name)) {
            if !header.isEmpty { header += "; " }
            header += cookie.pair
        }
        return header.isEmpty ? nil : header
    }

    /// Stores the cookies of `setCookieHeaders` received from `url`; returns how many were
    /// stored or removed. Refusals are logged at `debug`, with the cookie's name, never its value.
    @discardableResult
    func receive(_ setCookieHeaders: [String], from url: CookieRequestURL, logger: Logger) -> Int {
        let now = clock.now()
        var outcomes: [(String, CookieStore.Outcome)] = []
        outcomes.reserveCapacity(setCookieHeaders.count)
        // One field is one cookie (RFC 6265 §5.2): a comma in its value never starts another.
        // URLSession's folded fields are split by its transport, which alone folds them.
        let parsed = setCookieHeaders.map { SetCookieParser.parse($0, maxNameValueBytes: limits.maxCookieBytes) }
        let (before, after) = store.withLock { store in
            let before = store.revision
            for (index, cookie) in parsed.enumerated() {
                guard let cookie else {
                    outcomes.append(("#\(index + 1)", .refused("not a valid Set-Cookie header")))
                    continue
                }
                outcomes.append((cookie.name, store.receive(cookie, from: url, now: now)))
            }
            return (before, store.revision)
        }
        var accepted = 0
        for (name, outcome) in outcomes {
            if case .refused(let reason) = outcome {
                // The reason quotes the server's attributes (`Domain=…`): escaped like the name.
                logger.debug("Cookie refused: \(LogSafeText.escape(String(name.prefix(64)))) from \(url.host): \(LogSafeText.escape(String(reason.prefix(300))))")
            } else {
                accepted += 1
            }
        }
        if after != before { persist(revision: after) }
        return accepted
    }

    /// Writes every change made so far to the jar's file, and returns when it is there (or
    /// when writing failed, which is logged as a `warning`). Changes are written in the
    /// background a moment after they happen; call this where they must be on disk before going
    /// on: when an app moves to the background, before a process exits. It blocks the calling
    /// thread for the write under way, if any, and one more. Does nothing for a jar without a file,
    /// nor when called from within the jar's own write (a log handler, a clock).
    public func flush() {
        writer?.flush(logger: logger) { [self] in snapshot() }
    }

    /// Asks for the cookies to be saved, if the jar has a file; returns at once.
    private func persist(revision: Int) {
        writer?.request(revision: revision, logger: logger) { [self] in snapshot() }
    }

    /// The cookies the file keeps (session cookies only when asked to), sorted so the file is
    /// the same for the same cookies, and the store's revision they are from.
    private func snapshot() -> (cookies: [Cookie], revision: Int) {
        let now = clock.now()
        let keepsSessions = persistsSessionCookies
        let (saved, revision) = store.withLock { store in
            (store.all(at: now).filter { keepsSessions || !$0.isSessionCookie }, store.revision)
        }
        let cookies = saved.sorted { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }
        return (cookies, revision)
    }
}
