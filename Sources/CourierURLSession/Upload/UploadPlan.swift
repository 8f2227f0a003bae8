import Courier
import Foundation
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How ``URLSessionTransport`` sends a request body.
///
/// - A file body (`.file`) is uploaded from disk with `uploadTask(with:fromFile:)`: the session
///   reads it in small pieces as it sends (FoundationNetworking keeps at most three 16 KiB reads
///   ahead of libcurl), whatever its size. A file whose size the system does not report (a
///   `/proc` file: size 0, yet content) is sent like a `.stream` instead.
/// - A multipart form with files is written to a temporary file first (the session can only
///   stream a file), uploaded the same way, and the file is removed when the task ends —
///   completed, failed or cancelled.
/// - The bytes of a JSON, `Data` or form body the client holds (``UploadDescription/heldBytes``,
///   when no middleware replaced the body) are handed to the task as they are, up to
///   ``URLSessionTransport/maxRequestBodySize``; larger ones are written to a temporary file
///   first (FoundationNetworking would copy them whole), uploaded the same way.
/// - Any other body (a `.stream`, a multipart form without files, a body a middleware built) is
///   read into memory up to ``URLSessionTransport/maxRequestBodySize``; past that, what was read
///   and the rest are written to a temporary file as they come, and the file is uploaded the same
///   way. Memory stays bounded and there is no size limit but the disk.
///
/// Why not stream a body straight from the sequence: FoundationNetworking reads a body stream
/// (`httpBodyStream`, `uploadTask(withStreamedRequest:)`) on the session's own serial queue and
/// ends the body the first time the stream has no bytes available, so a stream fed from an
/// async sequence would have to block that queue — stalling every transfer of the session, and
/// deadlocking when the sequence is itself a response body of the same session.
enum UploadPlan: Sendable {
    case none
    case inMemory(Data)
    case file(URL, temporary: Bool)

    /// Whether the task sends a request body.
    var sendsBody: Bool {
        if case .none = self { return false }
        return true
    }

    /// The plan for `body`, writing the temporary file when one is needed. A body read here (not
    /// a file) reports each chunk to `activity`, so that under an idle timeout a source that
    /// stops yielding fails after the idle limit rather than at the deadline.
    static func make(for body: HTTPBody?, description: UploadDescription?, maxInMemory: Int, temporaryDirectory: URL,
                     activity: UploadActivity? = nil) async throws -> UploadPlan {
        guard let body else { return .none }
        if let description, description.readsFiles, let source = description.source {
            switch source {
            case .file(let url):
                // A file whose size the system does not know (a `/proc` file reports 0 and has
                // content): the session would upload its reported size, so it is read as a
                // stream below instead.
                if case .known = body.length { return .file(url, temporary: false) }
            case .segments(let segments):
                return .file(try writeTemporaryFile(segments, in: temporaryDirectory), temporary: true)
            }
        }
        var declared: Int64?
        if case .known(let length) = body.length { declared = length }
        activity?.begin()
        if let declared, declared <= maxInMemory {
            return .inMemory(try await collect(body, declaredLength: Int(declared), activity: activity))
        }
        return try await spool(body, keepingInMemory: maxInMemory, in: temporaryDirectory, declaredLength: declared, activity: activity)
    }

    /// A body's bytes, which must be as many as it declared: a longer one is not read past its
    /// length (memory stays bounded), a shorter one is not sent short.
    private static func collect(_ body: HTTPBody, declaredLength: Int, activity: UploadActivity?) async throws -> Data {
        var data = Data()
        data.reserveCapacity(declaredLength)
        do {
            for try await chunk in body {
                activity?.moved()
                guard chunk.count <= declaredLength - data.count else { throw lengthMismatch(declared: declaredLength, longer: true) }
                data.append(contentsOf: chunk)
            }
        } catch let error as TransportError {
            throw error
        } catch {
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            throw TransportError(.invalidRequest, "the request body could not be read: \(error)", underlying: error, requestMayHaveBeenSent: false)
        }
        try Task.checkCancellation()   // a cancelled stream may just end
        guard data.count == declaredLength else { throw lengthMismatch(declared: declaredLength, longer: false) }
        return data
    }

    /// The error for a body whose bytes differ from its declared length (AsyncHTTPClient's
    /// `bodyLengthMismatch` is mapped to the same words).
    static func lengthMismatch(declared: some BinaryInteger, longer: Bool) -> TransportError {
        TransportError(.invalidRequest, "the request body is \(longer ? "longer" : "shorter") than its declared length of \(declared) bytes",
                       requestMayHaveBeenSent: false)
    }

    /// Reads `body` into memory while it stays within `limit` bytes; past that, writes it to a
    /// new file in `directory` as it is read. The file is removed again when reading or writing
    /// fails or the task is cancelled. Each chunk read is reported to `activity`.
    static func spool(_ body: HTTPBody, keepingInMemory limit: Int, in directory: URL, declaredLength: Int64? = nil,
                      activity: UploadActivity? = nil) async throws -> UploadPlan {
        var buffer = Data()
        var file: (url: URL, handle: FileHandle)?
        var total: Int64 = 0
        // A failure of the temporary file is this machine's disk (`localFile`); any other error
        // comes from the caller's body itself, as in `collect`.
        func onDisk<T>(_ operation: () throws -> T) throws -> T {
            do {
                return try operation()
            } catch {
                throw TransportError(.localFile, "the request body could not be written to a temporary file for upload (URLSessionTransport spools bodies larger than maxRequestBodySize to \(directory.path)): \(error)",
                                     underlying: error, requestMayHaveBeenSent: false)
            }
        }
        do {
            for try await chunk in body {
                try Task.checkCancellation()
                activity?.moved()
                total += Int64(chunk.count)
                if let declaredLength, total > declaredLength { throw lengthMismatch(declared: declaredLength, longer: true) }
                if let (_, handle) = file {
                    try onDisk { try handle.write(contentsOf: chunk) }
                    continue
                }
                buffer.append(contentsOf: chunk)
                if buffer.count > limit {
                    let url = directory.appendingPathComponent("\(temporaryFilePrefix)\(UUID().uuidString).body")
                    // Created and opened owner-only in one call: nothing is left behind when it
                    // fails, and no other user can open it before the mode is set.
                    let handle = try onDisk { try OwnerOnlyFile.create(at: url) }
                    file = (url, handle)
                    try onDisk { try handle.write(contentsOf: buffer) }
                    buffer = Data()
                }
            }
            // A stream whose reader is cancelled may just end: what was read is not the body.
            try Task.checkCancellation()
            if let declaredLength, total < declaredLength { throw lengthMismatch(declared: declaredLength, longer: false) }
            guard let (url, handle) = file else { return .inMemory(buffer) }
            try onDisk { try handle.close() }
            return .file(url, temporary: true)
        } catch {
            if let (url, handle) = file {
                try? handle.close()
                try? FileManager.default.removeItem(at: url)
            }
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            if let error = error as? TransportError { throw error }
            throw TransportError(.invalidRequest, "the request body could not be read: \(error)", underlying: error, requestMayHaveBeenSent: false)
        }
    }

    /// Writes bytes the client holds to a new owner-only file in `directory`, for a body too
    /// large to hand the session in memory; removes it again when writing fails.
    static func writeTemporaryFile(_ data: Data, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("\(temporaryFilePrefix)\(UUID().uuidString).body")
        do {
            let handle = try OwnerOnlyFile.create(at: url)
            do {
                try handle.write(contentsOf: data)
                try handle.close()
            } catch {
                // Only a file this call created is removed.
                try? handle.close()
                try? FileManager.default.removeItem(at: url)
                throw error
            }
            return url
        } catch {
            throw TransportError(.localFile, "the request body could not be written to a temporary file for upload (URLSessionTransport writes bodies larger than maxRequestBodySize to \(directory.path)): \(error)",
                                 underlying: error, requestMayHaveBeenSent: false)
        }
    }

    /// Writes a multipart form's segments to a new file in `directory`; removes it
    /// again when writing fails or the task is cancelled.
    static func writeTemporaryFile(_ segments: [BodySegment], in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("\(temporaryFilePrefix)\(UUID().uuidString).multipart")
        do {
            try BodySegment.write(segments, to: url)
            try Task.checkCancellation()
            return url
        } catch {
            try? FileManager.default.removeItem(at: url)
            if error is CancellationError { throw error }
            throw TransportError(.localFile, "the multipart body could not be written to a temporary file in \(directory.path) for upload (a part's file could not be read, or the temporary file not written): \(error.localizedDescription)", underlying: error, requestMayHaveBeenSent: false)
        }
    }

    /// The name every temporary upload file starts with.
    static let temporaryFilePrefix = "courier-upload-"
}
