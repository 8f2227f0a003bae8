import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Follows redirects on top of a transport, so every transport behaves the same: credentials
/// never cross origins, `https` is never downgraded by default, loops and long chains end in
/// an error, and the whole chain shares one deadline.
struct RedirectFollower: Sendable {
    let transport: any Transport
    let defaultPolicy: RedirectPolicy

    /// Sends `request` and follows the redirects its answer asks for, under `context`'s
    /// redirect policy (or ``defaultPolicy``).
    @inline(__always)
    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        let (head, responseBody, _) = try await sendReadingStatus(request, body: body, context: context)
        return (head, responseBody)
    }

    /// ``send(_:body:context:)`` with the final answer's status code, read once for the
    /// redirect check and handed on for the client's status check (`HTTPResponse.status` builds
    /// the whole status at each read).
    @inline(__always)
    func sendReadingStatus(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?, Int) {
        // The last stop before the wire, after every middleware: framing is the transport's.
        try TransportOwnedHeaders.check(request.headerFields)
        // Without an idle timeout a hop is only the transport call: made here, it saves an async
        // call and its task frame.
        let first = context.idleTimeout == nil ? try await transport.send(request, body: body, context: context)
                                               : try await sendHop(request, body: body, context: context)
        // Whatever the transport (one of your own included): no middleware sees a head so large
        // that adding a field to it would trap.
        try TransportError.checkFieldCount(of: first.0)
        let code = first.0.status.code
        guard Self.isRedirect(code) else { return (first.0, first.1, code) }
        let policy = context.options.redirectPolicy ?? defaultPolicy
        guard policy.maxRedirects > 0 else { return (first.0, first.1, code) }
        let last = try await follow(from: first, request: request, body: body, context: context, policy: policy)
        return (last.0, last.1, last.0.status.code)
    }

    private func follow(
        from first: (HTTPResponse, HTTPBody?), request: HTTPRequest, body: HTTPBody?,
        context: RequestContext, policy: RedirectPolicy
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var (response, responseBody) = first
        var request = request
        var body = body
        var visited: Set<String> = [Self.key(request)]
        var redirects = 0
        // One list decides what is secret, here and in logs: Redaction's, the client's, and
        // what middleware added.
        var extraSensitive = policy.sensitiveHeaders.union(context.sensitiveHeaders)
        extraSensitive.formUnion(context.options.sensitiveRedirectHeaders)
        let sensitive = extraSensitive
        let queryNames = context.queryNames
        let carriesCredentials = context.carriesCredentials
            || request.headerFields.contains { Redaction.isSensitive(header: $0.name, extra: sensitive) }

        while Self.isRedirect(response.status.code) {
            guard let location = response.headerFields[.location], !location.isEmpty else {
                return (response, responseBody)   // a 3xx without Location is an answer, not a redirect
            }
            // Keep the connection reusable; under an idle timeout, a body that stalls is given up
            // after it rather than holding the exchange until the total deadline.
            await BodyReading.drain(context.idleTimeout.flatMap { limit in responseBody.map { IdleTimeout.wrap($0, limit: limit) } } ?? responseBody)
            redirects += 1
            guard redirects <= policy.maxRedirects else {
                throw RedirectError(reason: "more than \(policy.maxRedirects) redirects", location: nil)
            }
            let current = try CheckedURL(string: Self.url(of: request))
            let nextEndpoint: CheckedURL
            do {
                guard let next = URL(string: location, relativeTo: URL(string: Self.url(of: request))) else {
                    throw APIError.invalidURL(queryNames.redact(url: location), reason: "it is not a valid URL")
                }
                nextEndpoint = try CheckedURL(next.absoluteURL)
            } catch let error as APIError {
                guard error.kind == .invalidURL else { throw error }
                throw RedirectError(reason: "the Location is not a URL Courier may follow: \(error.message ?? "invalid")", location: queryNames.redact(url: location))
            }
            if current.scheme == "https" && nextEndpoint.scheme == "http" && !policy.allowsInsecureRedirects {
                throw RedirectError(reason: "https → http downgrade (set RedirectPolicy.allowsInsecureRedirects to allow)", location: queryNames.redact(url: location))
            }

            var nextRequest = request
            nextRequest.scheme = nextEndpoint.scheme
            nextRequest.authority = nextEndpoint.authority
            nextRequest.path = Self.target(nextEndpoint)
            let status = response.status.code
            let leavesOrigin = !current.isSameOrigin(as: nextEndpoint)
            // 303, and 301/302 after a POST, turn the request into a GET without its body; any
            // other redirect sends the body again.
            let dropsBody = status == 303 || ((status == 301 || status == 302) && request.method == .post)
            if leavesOrigin {
                if !dropsBody, body != nil, carriesCredentials, !policy.allowsCrossOriginBodyRedirects {
                    throw RedirectError(
                        reason: "HTTP \(status) would resend the body of an authenticated or signed request to another origin, which could replay it (set RedirectPolicy.allowsCrossOriginBodyRedirects to allow)",
                        location: queryNames.redact(url: location))
                }
                // Secrets, what the client sends only to its own origin (its default headers,
                // `Accept-Language`), and validators of what was cached from it, as a request
                // built for another origin would lack them.
                let originOnly = context.originOnlyHeaders
                nextRequest.headerFields = nextRequest.headerFields.filter {
                    !Redaction.isSensitive(header: $0.name, extra: sensitive) && !originOnly.contains($0.name)
                        && !Self.conditionalHeaders.contains($0.name)
                }
            }
            if dropsBody {
                if nextRequest.method != .head { nextRequest.method = .get }
                body = nil
                nextRequest.headerFields[.contentType] = nil
                nextRequest.headerFields[.contentLength] = nil
                nextRequest.headerFields[.contentEncoding] = nil
                nextRequest.headerFields[.contentLanguage] = nil
                nextRequest.headerFields[.contentLocation] = nil
                nextRequest.headerFields[.transferEncoding] = nil
            } else if let replay = body, replay.iterationBehavior == .single {
                throw RedirectError(reason: "HTTP \(status) asks to resend a streamed body that can be sent only once", location: queryNames.redact(url: location))
            }
            guard visited.insert(Self.key(nextRequest)).inserted else {
                throw RedirectError(reason: "redirect loop", location: queryNames.redact(url: location))
            }
            for watch in context.redirectWatches { watch.followed(leavingOrigin: leavesOrigin) }
            do {
                for watch in context.redirectWatches where !watch.leftOrigin {
                    if let prepare = watch.prepareHop { nextRequest = try await prepare(nextRequest, body != nil) }
                }
            } catch var error as TransportError {
                // As for the hop's own failure below: the first request was answered already.
                error.requestMayHaveBeenSent = true
                throw error
            }
            for watch in context.redirectWatches {
                if let observe = watch.observeHop { nextRequest = observe(response, nextRequest) }
            }
            request = nextRequest
            do {
                (response, responseBody) = try await sendHop(request, body: body, context: context)
                try TransportError.checkFieldCount(of: response)
            } catch var error as TransportError {
                // The first request reached a server, which answered it: whatever this hop's
                // failure proves about the hop, a retry would send the whole chain again, and a
                // POST answered by a 303 would be handled twice.
                error.requestMayHaveBeenSent = true
                throw error
            }
        }
        return (response, responseBody)
    }

    /// One hop. Under an idle timeout, the wait for the head of a hop without a body is one
    /// idle wait; with a body, the exchange fails once the transport has reported no movement of
    /// the body, then no head, for the limit (``UploadActivity``). Each hop of a chain has the
    /// whole limit.
    private func sendHop(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        guard let limit = context.idleTimeout else { return try await transport.send(request, body: body, context: context) }
        let transport = self.transport
        guard let body else {
            return try await IdleTimeout.race(limit, waitingFor: "the response head") {
                try await transport.send(request, body: nil, context: context)
            }
        }
        let activity = UploadActivity()
        var context = context
        context.bodyChannels.uploadActivity = activity
        return try await withThrowingTaskGroup(of: (HTTPResponse, HTTPBody?).self) { [context] group in
            group.addTask { try await transport.send(request, body: body, context: context) }
            group.addTask { () async throws -> (HTTPResponse, HTTPBody?) in try await activity.watch(limit) }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// The fields that make a request conditional on what the client holds of the first origin's
    /// resource: meaningless to another origin, and they tell it what was cached.
    private static let conditionalHeaders: [HTTPField.Name] = [.ifNoneMatch, .ifModifiedSince, .ifMatch, .ifUnmodifiedSince, .ifRange]

    static func isRedirect(_ code: Int) -> Bool {
        code == 301 || code == 302 || code == 303 || code == 307 || code == 308
    }

    private static func url(of request: HTTPRequest) -> String {
        request.urlString
    }

    private static func key(_ request: HTTPRequest) -> String {
        request.method.rawValue + " " + url(of: request)
    }

    private static func target(_ endpoint: CheckedURL) -> String {
        let path = endpoint.path.isEmpty ? "/" : endpoint.path
        return endpoint.query.map { path + "?" + $0 } ?? path
    }
}

extension RequestOptions {
    private enum SensitiveRedirectHeadersKey: RequestOptionKey {
        static var defaultValue: Set<HTTPField.Name> { [] }
    }

    /// Headers that must not follow a redirect to another origin, beside those
    /// ``Redaction/isSensitive(header:extra:)`` and ``RequestContext/sensitiveHeaders`` name.
    /// Middleware add theirs to ``RequestContext/sensitiveHeaders`` instead; this option is for
    /// one request's own secret headers.
    public var sensitiveRedirectHeaders: Set<HTTPField.Name> {
        get { self[SensitiveRedirectHeadersKey.self] }
        set { self[SensitiveRedirectHeadersKey.self] = newValue }
    }
}
