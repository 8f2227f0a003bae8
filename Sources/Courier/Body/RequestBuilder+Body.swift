import Foundation
import OpenAPIRuntime

/// A request's body turned into what goes on the wire: its bytes (an `HTTPBody`) and the
/// `Content-Type` that frames them.
extension RequestBuilder {
    /// The body as an `HTTPBody`, and its content type.
    func encode(_ body: RequestBody) throws -> (HTTPBody, String?) {
        switch body {
        // Bodies of bytes in memory are registered as such, so a transport can send the bytes
        // directly rather than read them back through the body's async sequence.
        case .json(let value):
            let data = try configuration.encoder.encode(value)
            return (.registered(data), "application/json")
        case .data(let data, let contentType):
            return (.registered(data), contentType)
        case .form(let pairs):
            return (.registered(Data(FormEncoding.encode(pairs).utf8)), "application/x-www-form-urlencoded")
        case .multipart(let form):
            try form.validate()
            return (SegmentSequence(segments: form.segments(), chunkSize: BodyReading.uploadChunkSize).makeBody(), form.contentType)
        case .file(let url, let contentType):
            _ = try FileChunks.size(of: url)
            return (SegmentSequence(segments: [.file(url)], chunkSize: BodyReading.uploadChunkSize).makeBody(), contentType)
        case .stream(let stream, let contentType):
            return (stream, contentType)
        }
    }

    /// A request's own `Content-Type` for a multipart body: given the form's boundary when it
    /// has none. Throws when it is not a multipart type, or names another boundary (the
    /// server would split the body wrongly).
    static func multipartContentType(_ own: String, boundary: String, formType: String) throws -> String {
        let essenceEnd = own.utf8.firstIndex(of: UInt8(ascii: ";")) ?? own.endIndex
        let essence = own[..<essenceEnd].trimmingSpacesAndTabs().lowercased()
        guard essence.hasPrefix("multipart/") else {
            throw MultipartFormError(reason: "the request's own Content-Type '\(LogSafeText.escape(String(own.prefix(80))))' is not a multipart type, but its body is a multipart form")
        }
        // The boundary is compared as written: unlike most parameter values, it is case-sensitive
        // (so not read through `MediaType`, which lowercases them).
        for parameter in HTTPParameters(own[essenceEnd...], separator: ";") where parameter.nameIs("boundary") {
            guard let value = parameter.value else { continue }
            guard value == boundary else {
                throw MultipartFormError(reason: "the request's own Content-Type names the boundary '\(LogSafeText.escape(String(value.prefix(80))))', but the form is framed with '\(boundary)': leave the boundary out, or give the form the same one (MultipartForm(boundary:))")
            }
            return own
        }
        // `multipart/form-data; boundary=…` as the form writes it, quoted when it must be.
        guard let mark = formType.firstIndex(of: ";") else { return own }
        return String(own.trimmingSpacesAndTabs()) + formType[mark...]
    }
}
