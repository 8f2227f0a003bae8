import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// A private HTTP cache (RFC 9111, with RFC 5861's stale extensions), as middleware: it works
/// the same over every transport, on Linux and Apple platforms.
///
/// ```swift
/// let cache = CachingMiddleware(store: MemoryCacheStore(maxBytes: 20 << 20))
/// let client = APIClient(configuration: configuration, transport: AsyncHTTPClientTransport(), middleware: [
///     RetryMiddleware(),
///     AuthenticationMiddleware(.bearer(tokens)),
///     cache,                              // after authentication: credentials are part of the key
///     SigningMiddleware(…),              // after the cache: a stored response is never re-signed
/// ])
/// let user = try await client.response(for: GetUser(id: "42"))
/// print(user.metrics.cacheOutcome)        // .miss, then .hit while fresh, .revalidated after a 304
/// // At logout:
/// await cache.store.removeAll()
/// ```
///
/// What it does:
/// - **Stores** `GET` responses the client reads whole (`send`, `response(for:)`, `data(for:)`)
///   when HTTP allows: no `no-store` in the request or the response; a status with a heuristic
///   lifetime (200, 203, 204, 404, 405, 410, 414, 501) or explicit freshness
///   (`max-age`, `Expires`); `Vary` not `*` and naming at most 32
///   fields; not a redirect (the middleware sees one only when a request follows none) and not
///   reached through one; and useful — fresh for a while, or carrying a
///   validator (`ETag`, `Last-Modified`). `Set-Cookie` fields are not stored. Being a
///   private cache, it stores responses to requests with `Authorization` and `private`
///   responses; the key separates credentials (``HTTPCacheKey``), and cookie sessions: it
///   holds a digest of the cookies the client's ``CookieJar`` will add below it, so after a
///   logout (`jar.removeAll()`) and another login, no response of the first session answers
///   the second. A response to a request that went out with cookies a transport added from a
///   store of its own (`URLSessionTransport` without a jar: its `HTTPCookieStorage`), which no
///   key can tell apart, is not stored.
/// - **Serves** a stored response while it is fresh (`max-age`, else `Expires` − `Date`, else
///   10 % of the time since `Last-Modified`, capped by `maxHeuristicLifetime`; age per
///   RFC 9111 §4.2.3), unless the request or the response says `no-cache`, or the request's
///   `max-age`/`min-fresh` rule it out; a request's `max-stale` accepts a stale one unless the
///   response says `must-revalidate`.
/// - **Revalidates** a stale response with `If-None-Match`/`If-Modified-Since`; a `304` refreshes
///   the stored header fields and returns the stored body with its status
///   (``CacheOutcome/revalidated``) — in the store only if the entry is still the one it
///   validated (not replaced or removed meanwhile).
/// - **Purges win**: a response to a request that was under way when the store was purged
///   (``HTTPCacheStore/removeAll()`` at logout) is not stored (``HTTPCacheStore/purgeCount``).
/// - **Invalidates** the stored response for a URL after an unsafe request (`POST`, `PUT`,
///   `PATCH`, `DELETE`, …) to it succeeds, and for its `Location` and `Content-Location` when
///   they are on the same origin (RFC 9111 §4.4) — the entries of the same namespace, under
///   any credentials. A GET answered before that and arriving after it is not stored. (The
///   middleware asks the store with ``HTTPCacheStore/invalidateEntries(forURLs:where:)``: a
///   ``DiskCacheStore`` lists its directory and opens only those URLs' entry files.)
/// - **Stale responses** (opt in with `staleResponses`): `stale-while-revalidate` serves a stale
///   response at once and refreshes it in the background; `stale-if-error` serves it when the
///   server fails (an error, or 500, 502, 503, 504). `must-revalidate` and `no-cache` turn both off.
/// - `only-if-cached` in the request, or ``CachePolicy/returnCacheDontLoad``, answers
///   `504 Gateway Timeout` when nothing usable is stored.
///
/// Every response it handles carries a `Courier-Cache` field (`HTTPResponse.cacheOutcome`,
/// ``ResponseMetrics/cacheOutcome``), and a `debug` log line with `courier.cache`. Served
/// responses carry an `Age` field.
///
/// Left alone: requests with a body, `HEAD`, requests with `Range` or conditional fields of the
/// caller's own (the caller handles the `304`), and streamed responses (`stream(for:)`,
/// downloads, byte and event streams) — they neither read nor fill the store. A request can opt
/// out with ``RequestOptions/cachePolicy``. Without the middleware, nothing on the request path
/// looks at a cache.
public struct CachingMiddleware: Middleware, RoleDeclaringMiddleware {
    /// Which stale responses may be served (RFC 5861). Off by default.
    public struct StaleResponses: OptionSet, Sendable, Hashable {
        /// The options as bits.
        public let rawValue: Int
        /// Creates a set from its raw value.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Honour `stale-while-revalidate=N`: within N seconds of going stale, serve the stored
        /// response at once and revalidate it in the background (one revalidation per key at a time).
        public static let whileRevalidating = StaleResponses(rawValue: 1)
        /// Honour `stale-if-error=N` (in the response or the request): within N seconds of going
        /// stale, serve the stored response when the server cannot be reached or answers
        /// 500, 502, 503 or 504.
        public static let ifError = StaleResponses(rawValue: 2)
    }

    /// Where responses are kept. Purge it at logout: ``HTTPCacheStore/removeAll()``,
    /// ``HTTPCacheStore/removeEntries(for:sensitiveQueryNames:)``, ``HTTPCacheStore/removeEntries(withURLPrefix:)``.
    public let store: any HTTPCacheStore
    /// The URLs successful unsafe requests changed, shared by copies of this middleware.
    let invalidations: CacheInvalidations
    /// The namespace every key of this middleware carries.
    public let namespace: String
    /// The policy of requests whose options set none.
    public let policy: CachePolicy
    /// The stale responses this middleware may serve.
    public let staleResponses: StaleResponses
    /// The cap of a heuristic lifetime, in seconds.
    let maxHeuristicSeconds: TimeInterval
    /// Where the time comes from.
    let clock: any TimeSource
    private let backgroundRevalidations = Locked(Set<HTTPCacheKey>())

    /// Creates the cache middleware.
    ///
    /// - Parameters:
    ///   - store: where responses are kept; default a ``MemoryCacheStore`` of 10 MiB.
    ///   - namespace: what keeps this client's entries apart from other clients' in a shared
    ///     store (a tenant or user ID; default `"default"`).
    ///   - policy: the ``CachePolicy`` of requests whose options give none.
    ///   - staleResponses: the RFC 5861 behaviours to honour; none by default.
    ///   - maxHeuristicLifetime: the longest lifetime given to a response with `Last-Modified`
    ///     and no explicit freshness (default one day); `.zero` turns heuristics off.
    ///   - clock: where the time comes from, for ages and freshness (tests inject a
    ///     `ManualClock`).
    public init(store: any HTTPCacheStore = MemoryCacheStore(), namespace: String = "default", policy: CachePolicy = .useProtocol,
                staleResponses: StaleResponses = [], maxHeuristicLifetime: Duration = .seconds(86_400),
                clock: any TimeSource = .system) {
        self.store = store
        self.namespace = namespace
        self.policy = policy
        self.staleResponses = staleResponses
        self.maxHeuristicSeconds = max(0, maxHeuristicLifetime.secondsValue)
        self.clock = clock
        self.invalidations = CacheInvalidations()
    }

    public func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext,
                          next: @escaping HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
        if !Self.safeMethods.contains(where: { $0 == request.method }) {
            let (head, responseBody) = try await next(request, body, context)
            if (200..<400).contains(head.status.code) { await invalidate(after: request, response: head, context: context) }
            return (StoredHeaderFields.untagged(head), responseBody)
        }
        guard request.method == .get, body == nil, context.collectsResponseBody, !Self.isCallersOwnValidation(request) else {
            let (head, responseBody) = try await next(request, body, context)
            return (StoredHeaderFields.untagged(head), responseBody)
        }
        let policy = context.options.cachePolicy ?? self.policy
        let digest = CacheDigest(store: store)
        // The cookies the client's jar will add below: part of the key, so that one cookie
        // session's response never answers another's.
        let jarCookies = context.cookieJar?.cookies(addedTo: request)
        let key = HTTPCacheKey(request, namespace: namespace, context: context, digest: digest, jarCookies: jarCookies)
        let requestControl = CacheControl(request.headerFields)
        // A purge (logout), or an invalidation of this URL, from here on — while this request
        // looks in the store, waits, or refreshes in the background: nothing of its answer is stored.
        let mark = StoreMark(purges: await store.purgeCount, generation: invalidations.generation(of: key.url, namespace: key.namespace),
                             jarCookies: jarCookies)
        var stored: CachedHTTPResponse?
        if policy != .reloadIgnoringCache, let found = await entry(for: key),
           CacheVary(found.response.headerFields).matches(request, stored: found.varyingRequestFields, sensitive: context.sensitiveHeaders, digest: digest) {
            stored = found
        }
        guard let stored else {
            if policy == .returnCacheDontLoad || (policy == .useProtocol && requestControl.onlyIfCached) {
                return unavailable(request, context: context)
            }
            return try await fetch(request, context: context, key: key, mark: mark, validating: nil, requestControl: requestControl,
                                   replacesEntry: policy == .reloadIgnoringCache, next: next)
        }
        let responseControl = CacheControl(stored.response.headerFields)
        let freshness = CacheFreshness(of: stored, cacheControl: responseControl, now: clock.now(), maxHeuristicLifetime: maxHeuristicSeconds)
        switch policy {
        case .returnCacheElseLoad, .returnCacheDontLoad:
            return serve(stored, freshness: freshness, outcome: freshness.isFresh ? .hit : .stale, context: context)
        case .reloadIgnoringCache, .useProtocol:
            break
        }
        if let outcome = Self.servesWithoutValidation(freshness, request: requestControl, response: responseControl) {
            return serve(stored, freshness: freshness, outcome: outcome, context: context)
        }
        if requestControl.onlyIfCached {
            return unavailable(request, context: context)
        }
        // A request's max-age or min-fresh asks for a response fresh enough, which a stale one is not.
        if staleResponses.contains(.whileRevalidating), context.allowsBackgroundRequests, !responseControl.mustRevalidate, !responseControl.noCache,
           !requestControl.noCache, requestControl.maxAge == nil, requestControl.minFresh == nil, let window = responseControl.staleWhileRevalidate,
           !freshness.isFresh, freshness.staleness <= TimeInterval(window) {
            revalidateInBackground(request, context: context, key: key, mark: mark, stored: stored, requestControl: requestControl, next: next)
            return serve(stored, freshness: freshness, outcome: .stale, context: context)
        }
        return try await fetch(request, context: context, key: key, mark: mark, validating: (stored, responseControl, freshness),
                               requestControl: requestControl, replacesEntry: true, next: next)
    }

    // MARK: - Going to the network

    private typealias Validation = (entry: CachedHTTPResponse, control: CacheControl, freshness: CacheFreshness)

    /// Sends the request (with validators when `validating`), stores what may be stored unless
    /// the store changed since `mark` (read before the request looked in the store), and removes
    /// the entry under `key` when `replacesEntry` and the answer may not be stored.
    private func fetch(_ request: HTTPRequest, context: RequestContext, key: HTTPCacheKey, mark: StoreMark, validating: Validation?,
                       requestControl: CacheControl, replacesEntry: Bool, next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
        var outgoing = request
        if let stored = validating?.entry.response.headerFields {
            // Both validators in one pass over the stored fields.
            var conditions: [HTTPField] = []
            for field in stored {
                if field.name.isSame(as: .eTag) {
                    conditions.append(HTTPField(name: .ifNoneMatch, value: field.value))
                } else if field.name.isSame(as: .lastModified) {
                    conditions.append(HTTPField(name: .ifModifiedSince, value: field.value))
                }
            }
            outgoing.headerFields.replace(with: conditions)
        }
        var watched = context
        let redirects = RedirectWatch()
        watched.redirectWatches.append(redirects)
        let cookies = CookieWatch()
        watched.cookieWatches.append(cookies)
        let requestDate = clock.now()
        let head: HTTPResponse
        let responseBody: HTTPBody?
        do {
            (head, responseBody) = try await next(outgoing, nil, watched)
        } catch {
            if !Task.isCancelled, !(error is CancellationError), let validating,
               staleIfErrorAllows(validating, requestControl: requestControl) {
                return serve(validating.entry, freshness: validating.freshness, outcome: .stale, context: context)
            }
            throw error
        }
        let responseDate = clock.now()
        // Whether the answer is for the cookies the key holds: the jar added exactly those (a
        // login or logout that landed while the request was under way changes them), and no
        // transport added cookies of its own store, which no key can tell apart.
        let keyedCookies = !cookies.carriedTransportStoreCookies && cookies.jarCookies.allSatisfy { $0 == mark.jarCookies }
        if validating != nil, head.status.code == 304, redirects.count > 0 {
            // A 304 from where a redirect led (perhaps another origin) says nothing about the
            // stored entry: ask again without validators, and store nothing of the detour.
            await BodyReading.drain(responseBody)
            return try await fetch(request, context: context, key: key, mark: mark, validating: nil, requestControl: requestControl,
                                   replacesEntry: true, next: next)
        }
        if let validating {
            if head.status.code == 304 {
                await BodyReading.drain(responseBody)
                var refreshed = validating.entry
                refreshed.response.headerFields = StoredHeaderFields.merging(validating.entry.response.headerFields, with: head.headerFields,
                                                                                     sensitive: context.sensitiveHeaders)
                // A stored Date or Age the 304 does not replace would keep counting the entry's age
                // from the first response: without them its age starts at this answer.
                if !head.headerFields.has(.date) { refreshed.response.headerFields[.date] = nil }
                if !head.headerFields.has(.age) { refreshed.response.headerFields[.age] = nil }
                refreshed.requestDate = requestDate
                refreshed.responseDate = responseDate
                let refreshedControl = CacheControl(refreshed.response.headerFields)
                // A 304 to cookies the key does not hold (a login that landed meanwhile) vouches
                // for the stored body to this caller only: the entry stays as it was.
                if keyedCookies, !requestControl.noStore, !refreshedControl.noStore {
                    // RFC 9111 §4.3.4: the 304 updates the response it validated — not one
                    // stored since by another request, nor one removed since (a purge, an
                    // invalidation) — and only when its own ETag, if any, is that response's.
                    let current = await store.entry(for: key)
                    let eTag = head.headerFields[.eTag]
                    if let current, current.requestDate == validating.entry.requestDate, current.responseDate == validating.entry.responseDate,
                       eTag == nil || Self.weaklyEqual(eTag, validating.entry.response.headerFields[.eTag]) {
                        await store(refreshed, unlessChangedSince: mark)
                    }
                } else if keyedCookies {
                    await store.removeEntry(for: key)
                }
                let freshness = CacheFreshness(of: refreshed, cacheControl: refreshedControl,
                                               now: responseDate, maxHeuristicLifetime: maxHeuristicSeconds)
                return serve(refreshed, freshness: freshness, outcome: .revalidated, context: context)
            }
            if Self.serverErrors.contains(head.status.code), staleIfErrorAllows(validating, requestControl: requestControl) {
                await BodyReading.drain(responseBody)
                return serve(validating.entry, freshness: validating.freshness, outcome: .stale, context: context)
            }
        }
        var tagged = head
        tagged.headerFields.replace(.courierCache, with: CacheOutcome.miss.rawValue)
        guard redirects.count == 0, keyedCookies, let vary = storableVary(head, request: request, requestControl: requestControl,
                                                                          context: context, requestDate: requestDate, responseDate: responseDate) else {
            // What was stored is older than this answer: no policy may serve it afterwards. A
            // server error or `429` is a passing failure, not a new state of the resource: the
            // entry stays for stale-if-error and the offline policies. An answer to cookies the
            // key does not hold says nothing of the key's session.
            if replacesEntry, keyedCookies, !(500..<600).contains(head.status.code), head.status.code != 429 {
                await store.removeEntry(for: key)
            }
            log(.miss, key, context: context)
            return (tagged, responseBody)
        }
        let data = try await BodyReading.collect(responseBody, head: head, limit: context.maxResponseSize,
                                                 summary: RequestSummary(request, context: context))
        let entry = CachedHTTPResponse(key: key, response: StoredHeaderFields.storable(head, sensitive: context.sensitiveHeaders), body: data, requestDate: requestDate,
                                       responseDate: responseDate, varyingRequestFields: vary.selectingValues(of: request, sensitive: context.sensitiveHeaders, digest: CacheDigest(store: store)))
        await store(entry, unlessChangedSince: mark)
        log(.miss, key, context: context)
        return (tagged, HTTPBody(entry.bytes))
    }

    /// What a request saw of the store before it looked there: its purges, and its URL's
    /// invalidations; and the jar's cookies its key holds.
    private struct StoreMark {
        var purges: Int
        var generation: Int
        var jarCookies: String?
    }

    /// Whether the store was purged, or the entry's URL invalidated, since `mark`.
    private func changed(since mark: StoreMark, for key: HTTPCacheKey) async -> Bool {
        await store.purgeCount != mark.purges || invalidations.generation(of: key.url, namespace: key.namespace) != mark.generation
    }

    /// Stores `entry` unless the store was purged, or its URL invalidated, since `mark`; a
    /// purge or an invalidation that comes while the entry is written removes it again.
    private func store(_ entry: CachedHTTPResponse, unlessChangedSince mark: StoreMark) async {
        guard await !changed(since: mark, for: entry.key) else { return }
        await store.store(entry)
        if await changed(since: mark, for: entry.key) { await store.removeEntry(for: entry.key) }
    }

    private func staleIfErrorAllows(_ validating: Validation, requestControl: CacheControl) -> Bool {
        guard staleResponses.contains(.ifError), !validating.control.mustRevalidate, !validating.control.noCache else { return false }
        guard let window = requestControl.staleIfError ?? validating.control.staleIfError else { return false }
        return validating.freshness.staleness <= TimeInterval(window)
    }

    private func revalidateInBackground(_ request: HTTPRequest, context: RequestContext, key: HTTPCacheKey, mark: StoreMark,
                                        stored: CachedHTTPResponse, requestControl: CacheControl, next: @escaping HTTPHandler) {
        guard backgroundRevalidations.withLock({ $0.insert(key).inserted }) else { return }
        var context = context
        // The caller has its answer; the refresh gets a deadline of its own.
        context.deadline = ContinuousClock.now.advanced(by: context.timeout)
        let control = CacheControl(stored.response.headerFields)
        let freshness = CacheFreshness(of: stored, cacheControl: control, now: clock.now(), maxHeuristicLifetime: maxHeuristicSeconds)
        let middleware = self
        Task {
            defer { _ = middleware.backgroundRevalidations.withLock { $0.remove(key) } }
            do {
                let (_, body) = try await middleware.fetch(request, context: context, key: key, mark: mark, validating: (stored, control, freshness),
                                                           requestControl: requestControl, replacesEntry: true, next: next)
                await BodyReading.drain(body)
            } catch {
                // Nobody waits for this answer: say why the stale response stays.
                context.logger.debug("HTTP cache revalidation failed", metadata: [
                    "courier.operation": "\(context.operationName)",
                    "courier.cache": "revalidation-failed",
                    "url.full": "\(context.queryNames.redact(url: key.url))",
                    "error.type": "\(type(of: error))",
                ])
            }
        }
    }

    // MARK: - Helpers

    private static let safeMethods: [HTTPRequest.Method] = [.get, .head, .options, .trace]

    private static let serverErrors: Set<Int> = [500, 502, 503, 504]

    func log(_ outcome: CacheOutcome, _ key: HTTPCacheKey, context: RequestContext) {
        context.logger.debug("HTTP cache", metadata: [
            "courier.operation": "\(context.operationName)",
            "courier.cache": "\(outcome.rawValue)",
            "url.full": "\(context.queryNames.redact(url: key.url))",
        ])
    }
}
