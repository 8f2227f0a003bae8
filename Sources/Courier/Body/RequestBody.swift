import Foundation
import OpenAPIRuntime

/// The body of a request.
///
/// ```swift
/// .json(NewUser(name: "Ada"))                          // the client's JSONEncoder
/// .data(png, contentType: "image/png")
/// .form([("grant_type", "password"), ("username", "ada")])
/// .multipart(form)                                     // files uploaded from disk, never loaded whole
/// .file(url, contentType: "application/zip")           // uploaded from disk, any size
/// .stream(body)                                        // any HTTPBody
/// ```
///
/// Files — `.file`, and the file parts of `.multipart` — are uploaded from disk on both
/// transports, whatever their size. `AsyncHTTPClientTransport` streams every body;
/// `URLSessionTransport` sends the others (bytes, JSON, forms, `.stream`) from memory up to its
/// `maxRequestBodySize` and through a temporary file past it. See the article *Transports and
/// large transfers*.
public enum RequestBody: Sendable {
    /// A value encoded as JSON with the client's encoder; `Content-Type: application/json`.
    case json(any Encodable & Sendable)
    /// Raw bytes with a content type.
    case data(Data, contentType: String)
    /// `application/x-www-form-urlencoded` pairs, in order.
    case form([(String, String)])
    /// `multipart/form-data`.
    case multipart(MultipartForm)
    /// The contents of a file, uploaded from disk (never loaded whole) on both transports.
    case file(URL, contentType: String)
    /// A streaming body. Only bodies whose `iterationBehavior` is `.multiple` can be resent on
    /// a retry or a 307/308 redirect. `AsyncHTTPClientTransport` streams it as it is read;
    /// `URLSessionTransport` sends it from memory up to its `maxRequestBodySize` (4 MiB) and
    /// past that writes it to a temporary file as it is read, then uploads the file.
    case stream(HTTPBody, contentType: String? = nil)
}
