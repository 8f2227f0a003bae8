// The HTTP method attributes of a ``Service()`` protocol's requirements. They generate nothing
// themselves: ``Service()`` reads them.
//
// The path is relative to the client's base URL (or an absolute URL). `{name}` is replaced by the
// parameter `name`, percent-encoded as one segment (`"../admin"` → `..%2Fadmin`); `{+name}`
// inserts a sub-path on purpose; `{name=3}` and `{name="John Smith"}` give a default used when
// the argument is `nil`. Prefer raw strings for quoted defaults: `#"/authors/{name="John Smith"}"#`.

/// `GET path`.
///
/// ```swift
/// @GET("/posts/{id}")
/// func post(id: Int) async throws -> Post
/// ```
@attached(peer)
public macro GET(_ path: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// `GET url` — Snowdrop's spelling of ``GET(_:)``: `@GET(url: "/posts")`.
@attached(peer)
public macro GET(url: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// `POST path`.
///
/// ```swift
/// @POST("/posts") @Body("model")
/// func add(model: Post) async throws -> Post
/// ```
@attached(peer)
public macro POST(_ path: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// `POST url` — Snowdrop's spelling of ``POST(_:)``.
@attached(peer)
public macro POST(url: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// `PUT path`.
///
/// ```swift
/// @PUT("/posts/{id}")
/// func replace(id: Int, body: Post) async throws -> Post
/// ```
@attached(peer)
public macro PUT(_ path: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// `PUT url` — Snowdrop's spelling of ``PUT(_:)``.
@attached(peer)
public macro PUT(url: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// `PATCH path`.
///
/// ```swift
/// @PATCH("/posts/{id}")
/// func rename(id: Int, body: Rename) async throws -> Post
/// ```
@attached(peer)
public macro PATCH(_ path: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// `PATCH url` — Snowdrop's spelling of ``PATCH(_:)``.
@attached(peer)
public macro PATCH(url: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// `DELETE path`.
///
/// ```swift
/// @DELETE("/posts/{id}")
/// func remove(id: Int) async throws
/// ```
@attached(peer)
public macro DELETE(_ path: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// `DELETE url` — Snowdrop's spelling of ``DELETE(_:)``.
@attached(peer)
public macro DELETE(url: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// `HEAD path`; return `Void` or `Response<Void>` to read the headers.
///
/// ```swift
/// @HEAD("/files/{name}")
/// func probe(name: String) async throws -> Response<Void>
/// ```
@attached(peer)
public macro HEAD(_ path: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// `HEAD url` — Snowdrop's spelling of ``HEAD(_:)``.
@attached(peer)
public macro HEAD(url: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// Any method by name: `GET`, `POST`, `PUT`, `PATCH`, `DELETE`, `HEAD`, `OPTIONS`, `TRACE`,
/// `CONNECT` or `QUERY`. Another name is a compile-time error (with a fix-it for a lowercase one).
///
/// ```swift
/// @HTTP(method: "OPTIONS", path: "/posts")
/// func allowed() async throws -> Response<Void>
/// ```
@attached(peer)
public macro HTTP(method: String, path: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")
