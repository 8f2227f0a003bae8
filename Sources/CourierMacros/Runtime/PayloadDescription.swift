import Courier
import Foundation

/// How a file is described in a `multipart/form-data` upload: the part's name, the file name
/// and the MIME type.
///
/// Every `@FileUpload` method gets an extra `_payloadDescription:` argument (default `nil`).
/// Without one, the part is named after the parameter and the type is inferred from the bytes
/// (JPEG, PNG, GIF, TIFF, PDF, WebP, ZIP, plain text, otherwise `application/octet-stream`):
///
/// ```swift
/// let payload = PayloadDescription(name: "avatar", fileName: "me.jpeg", mimeType: "image/jpeg")
/// _ = try await service.uploadImage(jpeg, _payloadDescription: payload)
/// _ = try await service.uploadImage(jpeg)           // name "image", "image.jpg", image/jpeg
/// ```
public struct PayloadDescription: Sendable, Hashable {
    /// The form field name (`name=` in `Content-Disposition`).
    public var name: String
    /// The file name (`filename=`).
    public var fileName: String
    /// The MIME type; `nil` infers it from the file name's extension, then from the bytes.
    public var mimeType: String?

    /// Creates a description.
    public init(name: String, fileName: String, mimeType: String? = nil) {
        self.name = name
        self.fileName = fileName
        self.mimeType = mimeType
    }

    /// The description used when the caller gives none: the part named `name`, the type
    /// inferred from the bytes, the file name `name` plus the type's usual extension.
    public static func inferred(name: String, data: Data) -> PayloadDescription {
        let type = MediaType.infer(fileName: nil, data: data).description
        let fileExtension = extensions[type].map { ".\($0)" } ?? ""
        return PayloadDescription(name: name, fileName: name + fileExtension, mimeType: type)
    }

    static let extensions: [String: String] = [
        "image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/tiff": "tiff",
        "image/webp": "webp", "application/pdf": "pdf", "application/zip": "zip", "text/plain": "txt",
        "application/octet-stream": "bin",
    ]
}
