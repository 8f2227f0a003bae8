import Foundation
import OpenAPIRuntime

/// What Courier knows about a request body it built itself, for a transport that can do better
/// than reading it as a stream of chunks: where the bytes come from (a file, a multipart form's
/// parts, or bytes in memory) and who wants to hear about upload progress.
///
/// This is the one channel between the bodies Courier builds and its transports. An `HTTPBody`
/// is opaque, so the description is looked up by the body's identity (``BodyChannels/upload(of:)``):
/// a middleware that passes the body on unchanged keeps it, one that replaces the body (a
/// signing middleware that buffers it, say) drops it, and the transport then reads the new body
/// as the stream it is. `URLSessionTransport` uses it to upload files with
/// `uploadTask(with:fromFile:)`, to hand held bytes to the task and to report progress from
/// `didSendBodyData`; `AsyncHTTPClientTransport` to write small held bytes in one buffer and to
/// report progress as bytes are written to the connection.
/// Custom transports may ignore it: the body's bytes are the same either way.
package struct UploadDescription: Sendable {
    /// Where a body's bytes come from.
    package enum Source: Sendable {
        /// The whole content of one file.
        case file(URL)
        /// Bytes and files, in order (a multipart form).
        case segments([BodySegment])
    }

    /// Where the bytes come from, when the body is made of files (`nil`: only the stream).
    package var source: Source?
    /// The caller's progress handler (``APIClient/upload(_:progress:)``).
    package var progress: UploadProgressReporter?
    /// The same bytes without the progress count, for readers that are not the transport (a
    /// signing middleware hashing the body, debug logging showing its start): their reads are
    /// not upload progress. Weak: the progress body holds it while it lives, and the registry
    /// must not keep an upload's bytes after that.
    package weak var uncounted: HTTPBody?
    /// The bytes, when the client holds them in memory (a JSON, `Data` or form body): a
    /// transport may send them as they are rather than read the body as a stream. Weak: the
    /// body's sequence holds them while the body lives (see ``HeldBytes``).
    package weak var heldBytes: HeldBytes?

    /// Whether the source reads any file (a body worth sending from disk).
    package var readsFiles: Bool {
        switch source {
        case .file: return true
        case .segments(let segments): return segments.contains { if case .file = $0 { return true } else { return false } }
        case nil: return false
        }
    }
}

extension HTTPBody {
    /// What Courier knows about this body, if Courier built it (see ``UploadDescription``).
    /// Transports read it through ``BodyChannels/upload(of:)``.
    var uploadDescription: UploadDescription? { UploadRegistry.description(of: self) }

    /// `body` registered with `description`, so transports can find it.
    package static func registered(_ body: HTTPBody, as description: UploadDescription) -> HTTPBody {
        UploadRegistry.register(body, description)
        return body
    }
}

/// The descriptions of live bodies, by identity. Entries hold the body weakly: a lookup only
/// matches the very body that was registered (an address reused by a later body does not), and
/// entries of bodies that are gone are pruned as new ones arrive.
enum UploadRegistry {
    private struct Entry: Sendable {
        weak var body: HTTPBody?
        var description: UploadDescription
    }

    private struct Table: Sendable {
        var entries: [ObjectIdentifier: Entry] = [:]
        var pruneAt = 64
    }

    private static let table = Locked(Table())

    static func register(_ body: HTTPBody, _ description: UploadDescription) {
        table.withLock { table in
            if table.entries.count >= table.pruneAt {
                table.entries = table.entries.filter { $0.value.body != nil }
                table.pruneAt = max(64, table.entries.count * 2)
            }
            table.entries[ObjectIdentifier(body)] = Entry(body: body, description: description)
        }
    }

    static func description(of body: HTTPBody) -> UploadDescription? {
        table.withLock { table in
            guard let entry = table.entries[ObjectIdentifier(body)], entry.body === body else { return nil }
            return entry.description
        }
    }
}
