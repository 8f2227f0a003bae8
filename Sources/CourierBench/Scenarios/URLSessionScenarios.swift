import Courier
import CourierURLSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Raw `URLSession` against Courier over ``URLSessionTransport``.
///
/// The raw session is built from ``URLSessionTransport/defaultConfiguration()`` so both sides
/// pool connections alike; the raw side uses `data(for:)` and a `JSONDecoder`.
struct URLSessionScenarios {
    /// The raw session.
    let session: URLSession
    /// Courier over its own `URLSessionTransport`, with no middleware.
    let client: APIClient

    /// Creates both for `baseURL`. With `maxConnectionsPerHost`, both sessions get that
    /// `httpMaximumConnectionsPerHost` instead of the default configuration's (to measure
    /// connection reuse under other settings); without it Courier's side is `URLSessionTransport()`.
    init(baseURL: URL, maxConnectionsPerHost: Int? = nil) {
        let configuration = URLSessionTransport.defaultConfiguration()
        if let maxConnectionsPerHost {
            configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
            session = URLSession(configuration: configuration)
            let courierConfiguration = URLSessionTransport.defaultConfiguration()
            courierConfiguration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
            client = APIClient(configuration: APIConfiguration(baseURL: baseURL), transport: URLSessionTransport(configuration: courierConfiguration))
        } else {
            session = URLSession(configuration: configuration)
            client = APIClient(configuration: APIConfiguration(baseURL: baseURL), transport: URLSessionTransport())
        }
    }

    /// `urlsession.raw` and `urlsession.courier`. With `sameHeaders`, the raw request carries
    /// the headers Courier sends by default (`Accept`, `User-Agent`) and the ones
    /// `URLSessionTransport` adds (an empty `Accept-Language`; on Linux `Accept-Encoding`), so
    /// both put the same request on the wire.
    func scenarios(baseURL: URL, sameHeaders: Bool = false) -> [Scenario] {
        let session = self.session
        let client = self.client
        let request = Self.rawRequest(baseURL: baseURL, sameHeaders: sameHeaders, client: client)
        let decoder = JSONDecoder()
        return [
            Scenario(key: "urlsession.raw", label: "URLSession (raw)", family: "urlsession") { [request] in
                try await Self.rawUsers(session, request: request, decoder: decoder).check()
            },
            Scenario(key: "urlsession.courier", label: "Courier over URLSession", family: "urlsession") {
                try await client.send(ListUsers()).check()
            },
        ]
    }

    /// The raw side's request; with `sameHeaders`, with the fields `client` and the transport
    /// add, so both sides put the same request on the wire.
    static func rawRequest(baseURL: URL, sameHeaders: Bool, client: APIClient) -> URLRequest {
        var request = URLRequest(url: baseURL.appendingPathComponent(String(Fixtures.usersPath.dropFirst())))
        if sameHeaders {
            for field in CourierHeaders.defaults(of: client) { request.setValue(field.value, forHTTPHeaderField: field.name.rawName) }
            for added in URLSessionTransport.addedHeaderFields where request.value(forHTTPHeaderField: added.name) == nil {
                request.setValue(added.value, forHTTPHeaderField: added.name)
            }
        }
        return request
    }

    /// What an application using `URLSession` directly writes: `data(for:)`, check the status,
    /// decode.
    static func rawUsers(_ session: URLSession, request: URLRequest, decoder: JSONDecoder) async throws -> [BenchUser] {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse, http.statusCode == 200 else {
            throw UnexpectedAnswer(description: "not HTTP 200: \(response)")
        }
        return try decoder.decode([BenchUser].self, from: data)
    }

    /// The experiments, run only when asked for by name:
    /// - `urlsession.completion`: Courier over ``CompletionHandlerTransport`` (`data(for:)`
    ///   without a session delegate);
    /// - `urlsession.raw.nocookies`: raw URLSession as `urlsession.raw`, but with a session that
    ///   accepts no cookies (`httpCookieAcceptPolicy = .never`) — what `URLSessionTransport`'s
    ///   own session is told on Linux, where the transport stores the cookies itself. Raw code
    ///   written that way keeps no cookies; the pair shows Courier's cost against it.
    /// - `urlsession.post.raw` and `urlsession.post.courier`: a `POST` of one user as JSON (the
    ///   body encoded on both sides for each request), answered with the byte count: the cost of
    ///   a small request body, which `urlsession` (a `GET`) does not have.
    func experimentScenarios(baseURL: URL, sameHeaders: Bool) -> [Scenario] {
        let client = APIClient(configuration: APIConfiguration(baseURL: baseURL), transport: CompletionHandlerTransport())
        let configuration = URLSessionTransport.defaultConfiguration()
        configuration.httpCookieAcceptPolicy = .never
        let cookieless = URLSession(configuration: configuration)
        let request = Self.rawRequest(baseURL: baseURL, sameHeaders: sameHeaders, client: client)
        let decoder = JSONDecoder()
        let session = self.session
        let courier = self.client
        let user = PostUser.sample
        var post = URLRequest(url: baseURL.appendingPathComponent(String(Fixtures.uploadPath.dropFirst())))
        post.httpMethod = "POST"
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let encoder = JSONEncoder()
        // The server answers with the number of bytes it read: both sides check it.
        let expected = PostUser.expectedAnswer
        return [
            Scenario(key: "urlsession.completion", label: "Courier over data(for:), no delegate (experiment)", family: "experiments") {
                try await client.send(ListUsers()).check()
            },
            Scenario(key: "urlsession.raw.nocookies", label: "URLSession (raw, no cookies; experiment)", family: "experiments") {
                try await Self.rawUsers(cookieless, request: request, decoder: decoder).check()
            },
            Scenario(key: "urlsession.post.raw", label: "URLSession (raw) POST of JSON (experiment)", family: "experiments") { [post] in
                var post = post
                post.httpBody = try encoder.encode(user)
                let (data, response) = try await session.data(for: post)
                guard let http = response as? HTTPURLResponse, http.statusCode == 200, data == expected else {
                    throw UnexpectedAnswer(description: "not HTTP 200 with the body's length: \(response)")
                }
            },
            Scenario(key: "urlsession.post.courier", label: "Courier over URLSession POST of JSON (experiment)", family: "experiments") {
                let data = try await courier.send(PostUser(user: user))
                guard data == expected else { throw UnexpectedAnswer(description: "the server read \(String(decoding: data, as: UTF8.self)) bytes, not \(String(decoding: expected, as: UTF8.self))") }
            },
        ]
    }

    /// Ends the raw session (the transport ends its own when released).
    func shutdown() {
        session.finishTasksAndInvalidate()
    }
}
