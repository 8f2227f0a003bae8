import Foundation
import OpenAPIRuntime

/// The body of a request.
///
/// ```swift
/// .json(NewUser(name: "Ada"))                          // the client's JSONEncoder
/// .data(png, contentType: "image/png")
/// .form([("grant_type", "password"), ("username", "ada")])
/// .multipart(form)                                     // streamed, files never loaded whole
/// .file(url, contentType: "application/zip")           // streamed from disk
/// .stream(body)                                        // any HTTPBody
/// ```
public enum RequestBody: Sendable {
    /// A value encoded as JSON with the client's encoder; `Content-Type: application/json`.
    case json(any Encodable & Sendable)
    /// Raw bytes with a content type.
    case data(Data, contentType: String)
    /// `application/x-www-form-urlencoded` pairs, in order.
    case form([(String, String)])
    /// `multipart/form-data`.
    case multipart(MultipartForm)
    /// The contents of a file, streamed from disk.
    case file(URL, contentType: String)
    /// A streaming body. Only bodies whose `iterationBehavior` is `.multiple` can be resent on
    /// a retry or a 307/308 redirect.
    case stream(HTTPBody, contentType: String? = nil)
}
