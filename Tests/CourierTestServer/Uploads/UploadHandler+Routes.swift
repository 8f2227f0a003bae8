import Foundation
import NIOCore
import NIOHTTP1

/// The draft's requests: announcing resumption, creating an upload, asking its offset,
/// appending to it, and cancelling it.
extension UploadHandler {
    /// `OPTIONS`: whether the server offers resumable uploads, and its limits.
    func announce(channel: any Channel) {
        state.withLockedValue { $0.stats.options += 1 }
        guard behavior.offersResumption else {
            respond(204, [("Allow", "POST, PUT")], channel: channel)
            return
        }
        var fields = [("Accept-Patch", UploadWire.partialUpload)]
        if let limit = behavior.limit { fields.append(("Upload-Limit", limit)) }
        respond(204, fields, channel: channel)
    }

    /// `POST` or `PUT`: an upload resource when the request has `Upload-Complete` and the
    /// server offers resumption (its body appended from offset 0), a plain upload otherwise.
    func beginCreation(_ head: HTTPRequestHead, path: String, channel: any Channel) {
        let method = head.method.rawValue
        let contentType = head.headers.first(name: "Content-Type")
        state.withLockedValue { state in
            state.stats.creations += 1
            state.stats.creationMethods.append(method)
            state.stats.creationPaths.append(path)
            state.stats.creationContentTypes.append(contentType)
        }
        guard behavior.offersResumption, let completeField = head.headers.first(name: "Upload-Complete") else {
            mode = .plain(PlainUpload(method: method, path: path, contentType: contentType))
            UploadWire.continueIfExpected(head, channel: channel)
            return
        }
        let lengthField = head.headers.first(name: "Upload-Length")
        let declared = UploadWire.integer(lengthField)
        guard let completes = UploadWire.boolean(completeField), lengthField == nil || declared != nil else {
            respond(400, [], channel: channel)
            return
        }
        let contentLength = head.headers.first(name: "Content-Length").flatMap { Int($0) }
        if completes, let declared, let contentLength, declared != contentLength {
            respondInconsistentLength(channel: channel)
            return
        }
        let id = Self.newID()
        let upload = UploadResource(id: id, method: method, path: path, contentType: contentType,
                                    length: declared ?? (completes ? contentLength : nil))
        let ticket = state.withLockedValue { state -> Int in
            let ticket = state.nextTicket()
            state.uploads[id] = upload
            state.uploads[id]?.appender = .init(ticket: ticket, channel: channel)
            return ticket
        }
        mode = .appending(Appending(id: id, ticket: ticket, completes: completes, creation: true))
        UploadWire.continueIfExpected(head, channel: channel)
    }

    /// `HEAD /uploads/<id>`: the offset (shifted by ``UploadServer/Behavior/headOffsetShift``),
    /// whether the upload is complete, and its length when known.
    func retrieveOffset(_ id: String, channel: any Channel) {
        let found = state.withLockedValue { state -> (offset: Int, complete: Bool, length: Int?, stale: (any Channel)?)? in
            state.stats.heads += 1
            let stale = state.supersede(id, by: channel)
            guard let offset = state.uploads[id]?.offset, let complete = state.uploads[id]?.complete else { return nil }
            return (offset, complete, state.uploads[id]?.length, stale)
        }
        guard let found else {
            respond(404, [], channel: channel)
            return
        }
        found.stale?.close(promise: nil)
        var fields = [("Upload-Offset", "\(max(0, found.offset + behavior.headOffsetShift))"), ("Upload-Complete", found.complete ? "?1" : "?0")]
        if let length = found.length { fields.append(("Upload-Length", "\(length)")) }
        if let limit = behavior.limit { fields.append(("Upload-Limit", limit)) }
        fields.append(("Cache-Control", "no-store"))
        respond(204, fields, channel: channel)
    }

    /// `PATCH /uploads/<id>`: checked, then its body appended as it arrives.
    func beginAppend(_ head: HTTPRequestHead, id: String, channel: any Channel) {
        let offset = UploadWire.integer(head.headers.first(name: "Upload-Offset"))
        let completes = UploadWire.boolean(head.headers.first(name: "Upload-Complete"))
        let declared = head.headers.first(name: "Upload-Length").map { UploadWire.integer($0) }
        let contentLength = head.headers.first(name: "Content-Length").flatMap { Int($0) }
        let partial = UploadWire.mediaType(head.headers.first(name: "Content-Type")) == UploadWire.partialUpload
        let (start, stale) = state.withLockedValue { state -> (UploadServer.State.AppendStart, (any Channel)?) in
            state.stats.patches += 1
            state.stats.patchOffsets.append(offset ?? -1)
            let stale = state.supersede(id, by: channel)
            let start = state.startAppend(id, offset: offset, completes: completes, declaredLength: declared,
                                          contentLength: contentLength, partial: partial, channel: channel)
            return (start, stale)
        }
        stale?.close(promise: nil)
        switch start {
        case .accepted(let ticket):
            mode = .appending(Appending(id: id, ticket: ticket, completes: completes ?? false, creation: false))
            UploadWire.continueIfExpected(head, channel: channel)
        case .notFound:
            respond(404, [], channel: channel)
        case .unsupportedMediaType:
            respond(415, [("Accept-Patch", UploadWire.partialUpload)], channel: channel)
        case .badRequest:
            respond(400, [], channel: channel)
        case .completed:
            respond(400, [("Content-Type", "application/problem+json")],
                    body: UploadWire.problem("completed-upload", title: "The upload is already complete"), channel: channel)
        case .inconsistentLength:
            respondInconsistentLength(channel: channel)
        case .mismatchedOffset(let expected):
            let body = UploadWire.problem("mismatching-upload-offset", title: "The offset does not match the upload's",
                                          [("expected-offset", expected), ("provided-offset", offset ?? -1)])
            respond(409, [("Upload-Offset", "\(expected)"), ("Content-Type", "application/problem+json")], body: body, channel: channel)
        }
    }

    /// The end of a creation's or a `PATCH`'s body: `201` with the upload's location (a
    /// creation), `204` (an append), or the final answer (`Upload-Complete: ?1`).
    func finishAppend(_ appending: Appending, channel: any Channel) {
        switch state.withLockedValue({ $0.finish(appending.id, ticket: appending.ticket, completes: appending.completes) }) {
        case .stopped:
            ended = true
            channel.close(promise: nil)
        case .inconsistentLength:
            respondInconsistentLength(channel: channel)
        case .incomplete(let offset) where appending.creation:
            var fields = [("Location", behavior.locationOverride.map { $0.replacingOccurrences(of: "{id}", with: appending.id) } ?? Self.uploadsPrefix + appending.id)]
            if let limit = behavior.limit { fields.append(("Upload-Limit", limit)) }
            fields += [("Upload-Complete", "?0"), ("Upload-Offset", "\(offset)")]
            respond(201, fields, channel: channel)
        case .incomplete(let offset):
            respond(204, [("Upload-Complete", "?0"), ("Upload-Offset", "\(offset)")], channel: channel)
        case .completed(let completed):
            respond(200, [("Content-Type", "application/json"), ("Upload-Complete", "?1")], body: UploadWire.finalAnswer(completed), channel: channel)
        }
    }

    /// `DELETE /uploads/<id>`: the upload is cancelled (`404` after).
    func cancel(_ id: String, channel: any Channel) {
        let (found, stale) = state.withLockedValue { state -> (Bool, (any Channel)?) in
            state.stats.deletes += 1
            let stale = state.supersede(id, by: channel)
            return (state.uploads.removeValue(forKey: id) != nil, stale)
        }
        stale?.close(promise: nil)
        respond(found ? 204 : 404, [], channel: channel)
    }

    /// A new upload id: 16 random hexadecimal digits.
    static func newID() -> String {
        let hex = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
