import CourierMacros
import Foundation

/// The demo API declared the Retrofit way: `@Service` generates `UsersAPIService`, a client
/// over `APIClient`, and `@Mockable` generates `UsersAPIServiceMock` for tests.
@Service @Mockable
protocol UsersAPI {
    /// One page of users; `page`, `per_page` and `q` go to the query (nil values are left out).
    @GET("/v1/users") @QueryParams(["page", "per_page", "q"])
    func users(page: Int, per_page: Int, q: String?) async throws -> Page<User>

    /// One user; the id is one encoded path segment. The request ID travels as a header.
    @GET("/v1/users/{id}") @Header("X-Request-ID", "requestID")
    func user(id: Int, requestID: String) async throws -> User

    /// Creates a user from a JSON body.
    @POST("/v1/users") @Body("user") @Headers(["X-Client": "courier-demo"])
    func create(user: DemoNewUser) async throws -> User

    /// Uploads an avatar as multipart/form-data (the part is named after the parameter).
    @FileUpload @Body("avatar") @PUT("/v1/users/{id}/avatar")
    func upload(id: Int, avatar: Data) async throws -> DemoAvatarReceipt

    /// A short timeout and no retries, per method.
    @GET("/v1/users/{id}") @Options(timeout: .seconds(2), retry: .never)
    func quickLookup(id: Int) async throws -> Response<User>
}
