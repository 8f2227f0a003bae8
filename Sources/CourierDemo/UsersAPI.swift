import CourierMacros
import Foundation

/// The demo API declared the Retrofit way: `@Service` generates `UsersAPIService`, a client
/// over `APIClient`, and `@Mockable` generates `UsersAPIServiceMock` for tests.
@Service @Mockable
protocol UsersAPI {
    /// One page of users: `page` goes to the query as it is, `perPage` as `per_page` and `search`
    /// as `q` (nil values are left out): `/v1/users?page=2&per_page=4`.
    @GET("/v1/users") @QueryParams(["page"]) @QueryParams(["perPage": "per_page", "search": "q"])
    func users(page: Int, perPage: Int, search: String?) async throws -> Page<User>

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
