/// Generates a client that implements the annotated protocol over an `APIClient`.
///
/// Each requirement of the protocol is an `async throws` method with one HTTP method attribute
/// (``GET(_:)``, ``POST(_:)``, ``PUT(_:)``, ``PATCH(_:)``, ``DELETE(_:)``, ``HEAD(_:)`` or
/// ``HTTP(method:path:)``). The generated type is named `<Protocol>Service`, or
/// `<Protocol>Impl` when the protocol's name already ends in `Service`:
///
/// ```swift
/// @Service
/// protocol Posts {
///     @GET("/posts/{id}") @QueryParams(["author"])
///     func post(id: Int, author: String?) async throws -> Post
/// }
///
/// let posts = PostsService(client: client)
/// // or: PostsService(baseURL: url, decoder: decoder, verbose: true, transport: AsyncHTTPClientTransport())
/// let post = try await posts.post(id: 7, author: "J")
/// let same = try await posts.post(id: 7, author: nil, _queryItems: [URLQueryItem(name: "page", value: "2")])
/// ```
///
/// The generated type is a `final class`, `Sendable`, with:
/// - `init(client: APIClient)`;
/// - `convenience init(baseURL: URL, decoder: JSONDecoder = JSONDecoder(), verbose: Bool = false,
///   transport: any Transport, middleware: [any Middleware] = [])` — the transport is required
///   because Courier's core ships none; `verbose: true` prints one line per request and response
///   (never headers, query values or bodies); `middleware` adds interceptors (Snowdrop's
///   `addBeforeSendingBlock` / `addOnResponseBlock` are `InterceptorMiddleware`), auth, retry…;
/// - each protocol method, and an overload with `_queryItems: [URLQueryItem] = []` (and
///   `_payloadDescription: PayloadDescription? = nil` for ``FileUpload()`` methods) for extra query
///   items added after the declared ones.
///
/// Each method builds an ``EndpointDescriptor`` and sends it: the same `Request` a
/// hand-written call would make, so middleware, stubs and limits see no difference. Misuse (a
/// `{name}` with no parameter, a parameter bound twice, two bodies, a body on `GET`, a method
/// that is not `async throws`, an unknown HTTP method, an invalid query or header name, two
/// parameters sent under one name) is a compile-time error, with a fix-it where one exists.
@attached(peer, names: suffixed(Service), suffixed(Impl))
public macro Service() = #externalMacro(module: "CourierMacrosPlugin", type: "ServiceMacro")

/// Generates a mock of the annotated protocol, named `<Protocol>ServiceMock` (or
/// `<Protocol>Mock` when the name already ends in `Service`).
///
/// For each method `name` the mock has `nameResult` (a `Result` every call returns),
/// `nameHandler` (a closure that gets the call's arguments), `nameCalls` (the recorded calls,
/// one struct per call with a property per argument) and `nameCallCount`. Overloaded method
/// names get their argument labels appended (`postIdAuthorResult`).
///
/// ```swift
/// @Service @Mockable
/// protocol Posts {
///     @GET("/posts/{id}") @QueryParams(["author"])
///     func post(id: Int, author: String) async throws -> Post
/// }
///
/// let mock = PostsServiceMock()
/// mock.postResult = .success(Post(id: 7, title: "Hi"))
/// let post = try await mock.post(id: 7, author: "J")
/// #expect(mock.postCalls.first?.author == "J")
/// ```
///
/// A method with neither a result nor a handler throws ``MockUnimplementedError``
/// (`"unimplemented: PostsServiceMock.post(id:author:)"`) and, when running under XCTest or
/// Swift Testing, records a test failure too; it never traps. The mock is `Sendable` by
/// construction: its state is behind ``MockEndpoint``'s lock, with no `@unchecked`.
@attached(peer, names: suffixed(ServiceMock), suffixed(Mock))
public macro Mockable() = #externalMacro(module: "CourierMacrosPlugin", type: "MockableMacro")
