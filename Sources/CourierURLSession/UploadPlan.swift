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
///   ahead of libcurl), whatever its size.
/// - A multipart form with files is written to a temporary file first (the session can only
///   stream a file), uploaded the same way, and the file is removed when the task ends —
///   completed, failed or cancelled.
/// - Any other body (bytes, JSON, a form, a `.stream`) is collected into memory, up to
///   ``URLSessionTransport/maxRequestBodySize``.
enum UploadPlan {
    case none
    case inMemory(Data)
    case file(URL, temporary: Bool)

    /// The plan for `body`, writing the temporary file when one is needed.
    static func make(for body: HTTPBody?, description: UploadDescription?, maxInMemory: Int, temporaryDirectory: URL) async throws -> UploadPlan {
        guard let body else { return .none }
        if let description, description.readsFiles, let source = description.source {
            switch source {
            case .file(let url):
                return .file(url, temporary: false)
            case .segments(let segments):
                return .file(try writeTemporaryFile(segments, in: temporaryDirectory), temporary: true)
            }
        }
        do {
            return .inMemory(try await Data(collecting: body, upTo: maxInMemory))
        } catch {
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            throw TransportError(.invalidRequest, "the request body is larger than URLSessionTransport.maxRequestBodySize (\(maxInMemory) bytes): URLSessionTransport collects bodies other than files and multipart forms with files in memory to send them. Send large content as .file or as a multipart form with a file part (uploaded from disk, no size limit), or raise maxRequestBodySize", underlying: error, requestMayHaveBeenSent: false)
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
            throw TransportError(.invalidRequest, "the multipart body could not be written to a temporary file for upload: \(error.localizedDescription)", underlying: error, requestMayHaveBeenSent: false)
        }
    }

    /// The name every temporary upload file starts with.
    static let temporaryFilePrefix = "courier-upload-"
}
