import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A loopback HTTP/1.1 server of resumable uploads (draft-ietf-httpbis-resumable-upload-15),
/// written on SwiftNIO so that it can cut an upload at an exact byte and lie on purpose.
///
/// `OPTIONS` says whether it offers resumption (`Accept-Patch: application/partial-upload`). A
/// `POST` or `PUT` with `Upload-Complete` creates an upload resource at `/uploads/<id>`: `HEAD`
/// asks its offset, `PATCH` appends at it, `DELETE` cancels it. A creation without
/// `Upload-Complete` (every creation, when the server does not offer resumption) is a plain
/// upload. ``Behavior/cuts`` offsets are drawn from a seeded generator; a body that reaches the
/// next unused one is appended up to it and its connection ended there (closed, reset, or
/// answered `500`). The server keeps each upload's offset and running SHA-256, never its bytes,
/// and answers a completed upload with `{"id", "size", "sha256", "method", "path", "contentType"}`.
///
/// ```swift
/// let server = try await UploadServer.start(.init(cuts: 3))
/// defer { Task { await server.stop() } }
/// // POST \(server.baseURL)/files with Upload-Complete: ?1, cut 3 times
/// ```
public final class UploadServer: Sendable {
    /// How a cut ends the connection (see ``ConnectionCutStyle``).
    public typealias CutStyle = ConnectionCutStyle

    /// What the server does.
    public struct Behavior: Sendable {
        /// The span the cut offsets are drawn in (`1..<size`); uploads may be of any length.
        public var size: Int
        /// How many cuts, at offsets drawn from `cutSeed`.
        public var cuts: Int
        /// The seed of the cut offsets and of how each is made (a close or a reset).
        public var cutSeed: UInt64
        /// How cuts end their connection.
        public var cutStyle: CutStyle
        /// Offers resumable uploads; without it every creation is a plain upload and `OPTIONS`
        /// announces no `Accept-Patch`.
        public var offersResumption: Bool
        /// The raw `Upload-Limit` value announced (e.g. `max-size=1000, max-append-size=100`), or
        /// `nil` for none. Announced only: the server does not enforce it.
        public var limit: String?
        /// The `Location` a creation answers instead of `/uploads/<id>` (`{id}` in it is replaced
        /// by the id), to try a client on other-origin or relative locations.
        public var locationOverride: String?
        /// Added to the offset `HEAD` reports (a lying server; the result is clamped at 0).
        public var headOffsetShift: Int
        /// The cut (1 for the first) at which the server loses the upload being appended: every
        /// later request for it answers `404`.
        public var forgetsAfterCut: Int?
        /// At a cut, answers `500` (`Connection: close`) and closes, instead of a bare close or reset.
        public var failsAtCutsWith500: Bool

        /// A behaviour; every argument defaults to a well-behaved server offering resumption.
        public init(size: Int = 64 << 20, cuts: Int = 0, cutSeed: UInt64 = 70, cutStyle: CutStyle = .mixed,
                    offersResumption: Bool = true, limit: String? = nil, locationOverride: String? = nil,
                    headOffsetShift: Int = 0, forgetsAfterCut: Int? = nil, failsAtCutsWith500: Bool = false) {
            self.size = size
            self.cuts = cuts
            self.cutSeed = cutSeed
            self.cutStyle = cutStyle
            self.offersResumption = offersResumption
            self.limit = limit
            self.locationOverride = locationOverride
            self.headOffsetShift = headOffsetShift
            self.forgetsAfterCut = forgetsAfterCut
            self.failsAtCutsWith500 = failsAtCutsWith500
        }
    }

    /// An upload the server saw to its end.
    public struct Completed: Sendable, Equatable {
        /// The upload resource's id, or `plain` for a plain upload.
        public var id: String
        /// Its length in bytes.
        public var size: Int
        /// The SHA-256 of its bytes, as 64 lowercase hexadecimal digits.
        public var sha256Hex: String
        /// The creation request's `Content-Type` (nil when absent).
        public var contentType: String?
        /// The creation request's method.
        public var method: String
        /// The creation request's target path (without its query).
        public var path: String
    }

    /// What the server saw and did.
    public struct Stats: Sendable {
        /// Requests received.
        public var requests = 0
        /// Creations (`POST` or `PUT` outside `/uploads/`, plain uploads included).
        public var creations = 0
        /// `HEAD` requests received (offset retrievals).
        public var heads = 0
        /// `PATCH` requests received (appends).
        public var patches = 0
        /// `DELETE` requests received (cancellations).
        public var deletes = 0
        /// `OPTIONS` requests received.
        public var options = 0
        /// Each creation's method, in order.
        public var creationMethods: [String] = []
        /// Each creation's target path (without its query), in order.
        public var creationPaths: [String] = []
        /// Each creation's `Content-Type` (nil when absent), in order.
        public var creationContentTypes: [String?] = []
        /// Request body bytes read, over every request: whole body parts, the one a cut falls in
        /// too, but nothing a connection sends after its cut.
        public var bodyBytesReceived = 0
        /// Cuts made (`500`s at cuts included).
        public var cutsMade = 0
        /// How many cuts were resets.
        public var resets = 0
        /// Each answer's status, in order (interim `100`s not counted).
        public var statuses: [Int] = []
        /// Each `PATCH`'s `Upload-Offset`, in order (-1 when missing or invalid).
        public var patchOffsets: [Int] = []
        /// The uploads seen to their end, in order.
        public var completed: [Completed] = []
    }

    /// The port the server listens on (127.0.0.1).
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// The behaviour it was started with.
    public let behavior: Behavior
    /// The cut offsets, ascending (for reports).
    public let cutOffsets: [Int]
    private let channel: any Channel
    let state: NIOLockedValueBox<State>

    /// What connections share: the cuts left, the upload resources, the counts.
    struct State: Sendable {
        /// Offsets not cut yet, ascending, each with whether it is a reset.
        var cuts: [(offset: Int, reset: Bool)]
        /// The upload resources by id (a deleted, invalid or forgotten one is gone).
        var uploads: [String: UploadResource] = [:]
        /// The last ticket handed to an appending request.
        var tickets = 0
        var stats = Stats()
    }

    /// What has been seen so far.
    public var stats: Stats { state.withLockedValue { $0.stats } }

    private init(port: Int, behavior: Behavior, channel: any Channel, state: NIOLockedValueBox<State>, cutOffsets: [Int]) {
        self.port = port
        self.behavior = behavior
        self.channel = channel
        self.state = state
        self.cutOffsets = cutOffsets
    }

    /// Starts a server on 127.0.0.1 on a port the OS picks.
    public static func start(_ behavior: Behavior) async throws -> UploadServer {
        let cuts = SeededCuts.draw(count: behavior.cuts, within: behavior.size, seed: behavior.cutSeed, style: behavior.cutStyle)
        let state = NIOLockedValueBox(State(cuts: cuts))
        let (channel, port) = try await LoopbackHTTP1Server.bind { UploadHandler(behavior: behavior, state: state) }
        return UploadServer(port: port, behavior: behavior, channel: channel, state: state, cutOffsets: cuts.map(\.offset))
    }

    /// Stops accepting connections, and closes those appending to an upload (as a server going away would).
    public func stop() async {
        try? await channel.close()
        let appending = state.withLockedValue { $0.uploads.values.compactMap { $0.appender?.channel } }
        for connection in appending { connection.close(promise: nil) }
    }
}
