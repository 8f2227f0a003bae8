import Courier

// Attributes that say where a ``Service()`` method's parameters go, and how its request is
// sent. They generate nothing themselves: ``Service()`` reads them.

/// Sends the named parameters as query items, in the order given. `nil` values are left out;
/// arrays add one item per element; enums with raw values send the raw value.
///
/// ```swift
/// @GET("/posts/{id}") @QueryParams(["author"])
/// func post(id: Int, author: String?) async throws -> Post     // /posts/7?author=J
/// ```
@attached(peer)
public macro QueryParams(_ names: [String]) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// Sends parameters as query items under names of their own: each key is a parameter, its value
/// the name sent, in the order written. Values are sent as with the list form: `nil` left out,
/// arrays repeat the name, raw values for enums.
///
/// ```swift
/// @GET("/users") @QueryParams(["page"]) @QueryParams(["perPage": "per_page"])
/// func users(page: Int, perPage: Int?) async throws -> [User]   // /users?page=2&per_page=50
/// ```
///
/// A name must be ASCII letters, digits and `-._~!$'()*,;:@/?[]` (no space, `&`, `=`, `+`, `#`
/// or `%`); a key that is not a parameter, an empty or invalid name, or two parameters sent
/// under one name is a compile-time error.
@attached(peer)
public macro QueryParams(_ wireNames: KeyValuePairs<String, String>) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// Static headers sent with every call of the method. Names and values are validated when
/// sent: CR, LF or NUL in a value fails the call with `APIError.encodingFailed`.
///
/// ```swift
/// @GET("/posts") @Headers(["X-DeviceID": "testSim001"])
/// func all() async throws -> [Post]
/// ```
@attached(peer)
public macro Headers(_ headers: [String: String]) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// Sends a parameter as a header (repeat the attribute for several). `nil` is left out; a value
/// with CR, LF or NUL fails the call with `APIError.encodingFailed`, never reaching the wire.
/// A literal name that is not an HTTP token, or two parameters sent as one header, is a
/// compile-time error.
///
/// ```swift
/// @GET("/posts") @Header("X-Trace", "traceID")
/// func all(traceID: String) async throws -> [Post]
/// ```
@attached(peer)
public macro Header(_ name: String, _ parameter: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// Names the parameter sent as the body. Without it, a parameter named `body` is the body.
///
/// The body is JSON (the client's encoder) for an `Encodable` value, the bytes as they are for
/// `Data`, or a `RequestBody` as given; ``FormURLEncoded()`` and ``FileUpload()`` change that.
///
/// ```swift
/// @POST("/posts") @Body("model")
/// func add(model: Post) async throws -> Post
/// ```
@attached(peer)
public macro Body(_ parameter: String) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// Sends an `application/x-www-form-urlencoded` body: the body parameter's top-level
/// properties if there is one, otherwise every parameter not bound to the path, query or headers.
///
/// ```swift
/// @POST("/oauth/token") @FormURLEncoded
/// func token(grant_type: String, username: String, password: String) async throws -> Token
/// ```
@attached(peer)
public macro FormURLEncoded() = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// Sends a `multipart/form-data` body: the body parameter (`Data`, a file `URL`, or a whole
/// `MultipartForm`) as a file part, and every other unbound parameter as a text field.
///
/// The generated method takes `_payloadDescription: PayloadDescription? = nil` to name the part,
/// the file and its MIME type; without it the part is named after the parameter and the type is
/// inferred from the bytes (JPEG, PNG, GIF, TIFF, PDF, text, else `application/octet-stream`).
/// A `MultipartForm` body names its own parts: a description given with one fails the call with
/// `APIError.Kind.encodingFailed`.
///
/// ```swift
/// @FileUpload @Body("image") @POST("/uploadAvatar/")
/// func uploadImage(_ image: Data) async throws -> Data
///
/// let payload = PayloadDescription(name: "avatar", fileName: "me.jpeg", mimeType: "image/jpeg")
/// _ = try await service.uploadImage(jpeg, _payloadDescription: payload)
/// ```
@attached(peer)
public macro FileUpload() = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")

/// Per-method `RequestOptions`: the arguments are those of `RequestOptions.init`, so
/// everything a hand-written request can set, a method can set.
///
/// ```swift
/// @POST("/payments") @Options(timeout: .seconds(5), retry: .always)      // safe to retry: idempotency key
/// func pay(body: Payment) async throws -> Receipt
///
/// @POST("/login") @Options(authentication: .none, includeBaseParameters: false)
/// func login(body: Credentials) async throws -> Session
/// ```
///
/// `operationName` defaults to `Protocol.method(labels:)`, as for every generated method.
@attached(peer)
public macro Options(
    operationName: String? = nil,
    timeout: Duration? = nil,
    retry: RequestOptions.RetryBehavior = .automatic,
    authentication: RequestOptions.Authentication = .automatic,
    includeBaseParameters: Bool = true,
    maxResponseSize: Int? = nil,
    acceptableStatusCodes: Set<Int>? = nil,
    redirectPolicy: RedirectPolicy? = nil,
    cachePolicy: CachePolicy? = nil,
    idleTimeout: Duration? = nil
) = #externalMacro(module: "CourierMacrosPlugin", type: "EndpointAttributeMacro")
