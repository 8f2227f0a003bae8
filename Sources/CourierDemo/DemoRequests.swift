import Courier
import Foundation
import HTTPTypes

// The demo API described as typed requests (protocol requests with a response type): one small
// struct per endpoint.

/// `GET /v1/users?page=&per_page=&q=` — one page of users.
struct ListUsers: APIRequest {
    typealias Response = Page<User>
    var page = 1
    var perPage = 5
    var search: String?

    var path: RequestPath { "/v1/users" }
    var query: [URLQueryItem] {
        .query([("page", page), ("per_page", perPage), ("q", search)])
    }
}

/// `GET /v1/users/{id}` — one user.
struct GetUser: APIRequest {
    typealias Response = User
    let id: Int
    var path: RequestPath { "/v1/users/{id}" }
    var pathParameters: [String: String] { ["id": String(id)] }
}

/// `POST /v1/users` — creates a user.
struct CreateUser: APIRequest {
    typealias Response = User
    let name: String
    let email: String
    var method: HTTPRequest.Method { .post }
    var path: RequestPath { "/v1/users" }
    var body: RequestBody? { .json(DemoNewUser(name: name, email: email)) }
}

/// `POST /v1/users/{id}/avatar` — uploads an image as multipart/form-data.
struct UploadAvatar: APIRequest {
    typealias Response = DemoAvatarReceipt
    let userID: Int
    let image: Data
    let fileName: String

    var method: HTTPRequest.Method { .post }
    var path: RequestPath { "/v1/users/{id}/avatar" }
    var pathParameters: [String: String] { ["id": String(userID)] }
    var body: RequestBody? {
        var form = MultipartForm()
        form.append(image, name: "avatar", fileName: fileName)
        return .multipart(form)
    }
}
