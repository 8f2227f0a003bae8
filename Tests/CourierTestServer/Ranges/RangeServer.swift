import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A loopback HTTP/1.1 server of one large file with ranges (RFC 9110), written on SwiftNIO so
/// that it can cut a connection at an exact byte and lie on purpose.
///
/// `GET /file` answers with the ``RangeContent`` of the behaviour's seed: `ETag` (or another
/// validator), `Accept-Ranges: bytes`, and `Range: bytes=N-` honoured when `If-Range` matches
/// (`206` with `Content-Range`; `416` past the end). ``Behavior/cuts`` offsets in the file are
/// drawn from a seeded generator; each response that reaches the next unused one is cut there
/// (the connection closed, or reset, or — ``Behavior/stallsAtCuts`` — left open with nothing
/// more sent). The body is written with back-pressure: the next chunk once the socket took the
/// last, so what ``Stats/bodyBytesSent`` counts is what the kernel accepted.
///
/// ```swift
/// let server = try await RangeServer.start(.init(size: 64 << 20, cuts: 12))
/// defer { Task { await server.stop() } }
/// // GET \(server.baseURL)/file, cut 12 times
/// ```
public final class RangeServer: Sendable {
    /// The validator the server gives.
    public enum Validator: Sendable {
        /// `ETag: "<seed>-v<version>"`.
        case strongETag
        /// `ETag: W/"<seed>-v<version>"`: never usable in `If-Range`.
        case weakETag
        /// `Last-Modified` a day before `Date`, no `ETag`.
        case lastModified
        /// No validator at all.
        case none
    }

    /// Which digest the server announces (`Repr-Digest`, RFC 9530).
    public enum Digest: Sendable { case none, correct, wrong }

    /// How a cut ends the connection (see ``ConnectionCutStyle``).
    public typealias CutStyle = ConnectionCutStyle

    /// What the server does.
    public struct Behavior: Sendable {
        /// The file's length.
        public var size: Int
        /// The content's seed (the same seed makes the same bytes in every process).
        public var seed: UInt64
        /// How many cuts, at offsets drawn from `cutSeed`.
        public var cuts: Int
        /// The seed of the cut offsets and of how each is made (a close or a reset).
        public var cutSeed: UInt64
        public var cutStyle: CutStyle
        public var validator: Validator
        /// Answers every request with a `200` of the whole file, without `Accept-Ranges`.
        public var ignoresRanges: Bool
        /// The cut (1 for the first) at which the file changes to its version 2: later
        /// requests get the new bytes and validator (an old `If-Range` gets a `200`).
        public var changesAtCut: Int?
        /// Added to the first byte a `206`'s `Content-Range` announces (a lying server).
        public var contentRangeShift: Int64
        /// Answers a request without `Range` with a `206` of the whole file.
        public var partialForPlainRequests: Bool
        /// Answers a range request with a `Content-Range` of a 9-quintillion-byte file.
        public var hugeContentRange: Bool
        /// Answers a range request with a `206` whose (chunked) body never ends.
        public var endlessPartial: Bool
        public var digest: Digest
        /// At a cut, stops sending and keeps the connection open (the client's idle timeout ends it).
        public var stallsAtCuts: Bool
        /// Bytes per write.
        public var chunkSize: Int
        /// A pause before each write (a slow link), or `nil`.
        public var chunkDelay: TimeAmount?

        /// A behaviour; every argument but the size and the cuts defaults to a well-behaved server.
        public init(size: Int = 64 << 20, seed: UInt64 = 1, cuts: Int = 0, cutSeed: UInt64 = 50, cutStyle: CutStyle = .mixed,
                    validator: Validator = .strongETag,
                    ignoresRanges: Bool = false, changesAtCut: Int? = nil, contentRangeShift: Int64 = 0,
                    partialForPlainRequests: Bool = false, hugeContentRange: Bool = false, endlessPartial: Bool = false,
                    digest: Digest = .none, stallsAtCuts: Bool = false, chunkSize: Int = 64 * 1024, chunkDelay: TimeAmount? = nil) {
            self.size = size
            self.seed = seed
            self.cuts = cuts
            self.cutSeed = cutSeed
            self.cutStyle = cutStyle
            self.validator = validator
            self.ignoresRanges = ignoresRanges
            self.changesAtCut = changesAtCut
            self.contentRangeShift = contentRangeShift
            self.partialForPlainRequests = partialForPlainRequests
            self.hugeContentRange = hugeContentRange
            self.endlessPartial = endlessPartial
            self.digest = digest
            self.stallsAtCuts = stallsAtCuts
            self.chunkSize = chunkSize
            self.chunkDelay = chunkDelay
        }
    }

    /// What the server saw and did.
    public struct Stats: Sendable {
        /// Requests received.
        public var requests = 0
        /// Each request's `Range` and `If-Range` (nil when absent), in order.
        public var ranges: [String?] = []
        public var ifRanges: [String?] = []
        /// Each answer's status, in order.
        public var statuses: [Int] = []
        /// Body bytes the socket accepted, over every answer.
        public var bodyBytesSent = 0
        /// Cuts made, and how many of them were resets.
        public var cutsMade = 0
        public var resets = 0
    }

    /// The port the server listens on (127.0.0.1).
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// The behaviour it was started with.
    public let behavior: Behavior
    private let channel: any Channel
    let state: NIOLockedValueBox<State>

    /// What answers share: the version served, the cuts left, the counts.
    struct State {
        var version = 1
        /// Offsets not cut yet, ascending, each with whether it is a reset.
        var cuts: [(offset: Int, reset: Bool)]
        var stats = Stats()
    }

    /// What has been seen so far.
    public var stats: Stats { state.withLockedValue { $0.stats } }
    /// The version served now (2 after ``Behavior/changesAtCut``).
    public var version: Int { state.withLockedValue { $0.version } }
    /// The SHA-256 of the file as served now.
    public var currentSHA256Hex: String { RangeContent.sha256Hex(seed: behavior.seed, version: version, size: behavior.size) }
    /// The cut offsets, ascending (for reports).
    public let cutOffsets: [Int]

    private init(port: Int, behavior: Behavior, channel: any Channel, state: NIOLockedValueBox<State>, cutOffsets: [Int]) {
        self.port = port
        self.behavior = behavior
        self.channel = channel
        self.state = state
        self.cutOffsets = cutOffsets
    }

    /// Starts a server on 127.0.0.1 on a port the OS picks. The content is made (or taken from
    /// this process's cache) before it returns.
    public static func start(_ behavior: Behavior) async throws -> RangeServer {
        _ = RangeContent.bytes(seed: behavior.seed, version: 1, size: behavior.size)
        if behavior.changesAtCut != nil { _ = RangeContent.bytes(seed: behavior.seed, version: 2, size: behavior.size) }
        let cuts = SeededCuts.draw(count: behavior.cuts, within: behavior.size, seed: behavior.cutSeed, style: behavior.cutStyle)
        let state = NIOLockedValueBox(State(cuts: cuts))
        let (channel, port) = try await LoopbackHTTP1Server.bind { RangeHandler(behavior: behavior, state: state) }
        return RangeServer(port: port, behavior: behavior, channel: channel, state: state, cutOffsets: cuts.map(\.offset))
    }

    /// Stops accepting connections.
    public func stop() async {
        try? await channel.close()
    }
}
