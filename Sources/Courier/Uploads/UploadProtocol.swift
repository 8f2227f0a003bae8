import Foundation
import HTTPTypes

/// The wire vocabulary of "Resumable Uploads for HTTP" (draft-ietf-httpbis-resumable-upload-15,
/// November 2026): its fields, media type and the readings of a response that the upload loop
/// (``ResumableUpload``) acts on. Everything that would change with a later draft or the RFC
/// — a field's name or type, how support is announced — is here, and only here.
///
/// Courier uses the draft's "careful upload creation": the transports do not hand interim
/// responses to their callers, so the upload resource is learned from the final `201` of an
/// empty creation request (`Upload-Complete: ?0`), never from a `104`. Support is detected
/// first with `OPTIONS` (`Accept-Patch` naming `application/partial-upload`, which the draft
/// requires of a resource that supports it since -10).
enum UploadProtocol {
    /// The draft implemented, for logs and documentation.
    static let draft = "draft-ietf-httpbis-resumable-upload-15"

    static let uploadComplete = HTTPField.Name("Upload-Complete")!
    static let uploadOffset = HTTPField.Name("Upload-Offset")!
    static let uploadLength = HTTPField.Name("Upload-Length")!
    static let uploadLimit = HTTPField.Name("Upload-Limit")!
    static let acceptPatch = HTTPField.Name("Accept-Patch")!
    /// The media type of an append's content.
    static let partialUpload = "application/partial-upload"

    /// A structured Boolean (`?1`, `?0`).
    static func boolean(_ value: Bool) -> String { value ? "?1" : "?0" }

    /// Whether an `OPTIONS` answer says the target accepts resumable uploads: its
    /// `Accept-Patch` names `application/partial-upload` itself (the draft: `*/*` and
    /// `application/*` do not promise the rest of the protocol).
    static func offersResumption(_ response: HTTPResponse) -> Bool {
        response.headerFields[values: acceptPatch].contains { list in
            list.split(separator: ",").contains { item in
                let type = item.split(separator: ";", maxSplits: 1).first ?? ""
                return type.trimmingCharacters(in: .whitespaces).lowercased() == partialUpload
            }
        }
    }

    /// `Upload-Offset`: a non-negative Integer; anything else is ignored (`nil`).
    static func offset(in response: HTTPResponse) -> Int64? {
        guard let field = response.headerFields[uploadOffset], case .integer(let value)? = StructuredFieldReader.item(field), value >= 0 else { return nil }
        return value
    }

    /// `Upload-Complete`: a Boolean; anything else is ignored (`nil`).
    static func complete(in response: HTTPResponse) -> Bool? {
        guard let field = response.headerFields[uploadComplete], case .boolean(let value)? = StructuredFieldReader.item(field) else { return nil }
        return value
    }

    /// `Upload-Length`: a non-negative Integer; anything else is ignored (`nil`).
    static func length(in response: HTTPResponse) -> Int64? {
        guard let field = response.headerFields[uploadLength], case .integer(let value)? = StructuredFieldReader.item(field), value >= 0 else { return nil }
        return value
    }

    /// `Upload-Limit`, when present and well formed (``UploadLimits/init(field:)``).
    static func limits(in response: HTTPResponse) -> UploadLimits? {
        response.headerFields[uploadLimit].flatMap(UploadLimits.init(field:))
    }
}
