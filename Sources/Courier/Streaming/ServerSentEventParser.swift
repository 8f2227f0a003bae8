import OpenAPIRuntime

/// Turns the bytes of a `text/event-stream` body into events, with every line and every event
/// bounded, in one pass over the bytes.
///
/// Written by hand rather than using swift-openapi-runtime's `asDecodedServerSentEvents()`,
/// whose line splitter keeps an unterminated line growing without limit (a server can stream
/// one endless line into memory) and searches it again for each new chunk (parsing time grows
/// with the square of a line's length). This parser follows the same rules — the HTML
/// standard's: LF, CR and CRLF line ends, a leading byte-order mark skipped, comment lines
/// (`: …`) ignored, `data:` lines joined with `\n`, one space after the colon removed, `retry:`
/// only when it is all digits, an event dispatched at a blank line and an unfinished one dropped
/// at the end — and refuses a line or an event larger than `limit` bytes.
struct ServerSentEventParser {
    /// The most bytes a line, or an event's fields together, may have.
    let limit: Int

    private var line: [UInt8] = []
    /// The previous chunk ended with CR: a LF at the start of the next one belongs to it.
    private var skipLeadingLF = false
    private var atStreamStart = true
    private var event = ServerSentEvent()
    /// The event's `data:` lines joined with LF, as bytes: appended in place, turned into a
    /// string once when the event is dispatched (joining strings per line would copy the whole
    /// data each time).
    private var data: [UInt8]?
    private var hasFields = false
    private var eventSize = 0

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Parses a chunk, appending completed events to `events`.
    mutating func consume(_ chunk: some Collection<UInt8>, into events: inout [ServerSentEvent]) throws {
        var bytes = chunk[...]
        if atStreamStart {
            // A byte-order mark may open the stream, and may arrive split over chunks.
            line.append(contentsOf: bytes)
            if line.count < Self.bom.count, Self.bom.starts(with: line) { return }
            atStreamStart = false
            let pending = line.starts(with: Self.bom) ? Array(line.dropFirst(Self.bom.count)) : line
            line.removeAll(keepingCapacity: true)
            try consume(pending, into: &events)
            return
        }
        if skipLeadingLF, let first = bytes.first {
            skipLeadingLF = false
            if first == Self.lf { bytes = bytes.dropFirst() }
        }
        while let end = bytes.firstIndex(where: { $0 == Self.lf || $0 == Self.cr }) {
            let piece = bytes[..<end]
            guard line.count + piece.count <= limit else { throw BodyLimitExceeded(limit: limit, part: .event) }
            if line.isEmpty {
                try process(line: piece, into: &events)
            } else {
                line.append(contentsOf: piece)
                try process(line: line[...], into: &events)
                line.removeAll(keepingCapacity: true)
            }
            let terminator = bytes[end]
            bytes = bytes[bytes.index(after: end)...]
            if terminator == Self.cr {
                if let next = bytes.first {
                    if next == Self.lf { bytes = bytes.dropFirst() }
                } else {
                    skipLeadingLF = true
                }
            }
        }
        guard line.count + bytes.count <= limit else { throw BodyLimitExceeded(limit: limit, part: .event) }
        line.append(contentsOf: bytes)
    }

    private mutating func process(line: some Collection<UInt8>, into events: inout [ServerSentEvent]) throws {
        if line.isEmpty {
            if hasFields {
                if let data { event.data = String(decoding: data, as: UTF8.self) }
                events.append(event)
            }
            event = ServerSentEvent()
            data = nil
            hasFields = false
            eventSize = 0
            return
        }
        if line.first == Self.colon { return }   // a comment
        eventSize += line.count
        guard eventSize <= limit else { throw BodyLimitExceeded(limit: limit, part: .event) }
        let field: String
        var rest = line[line.endIndex...]
        if let colon = line.firstIndex(of: Self.colon) {
            field = String(decoding: line[..<colon], as: UTF8.self)
            rest = line[line.index(after: colon)...]
            if rest.first == Self.space { rest = rest.dropFirst() }
        } else {
            field = String(decoding: line, as: UTF8.self)
        }
        if field == "data" {
            if data == nil {
                data = Array(rest)
            } else {
                data!.append(Self.lf)
                data!.append(contentsOf: rest)
            }
            hasFields = true
            return
        }
        let value = String(decoding: rest, as: UTF8.self)
        switch field {
        case "event":
            event.event = value
        case "id":
            event.id = value
        case "retry":
            guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let retry = Int64(value) else { return }
            event.retry = retry
        default:
            return
        }
        hasFields = true
    }

    private static let lf = UInt8(ascii: "\n")
    private static let cr = UInt8(ascii: "\r")
    private static let colon = UInt8(ascii: ":")
    private static let space = UInt8(ascii: " ")
    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
}

/// The events of an `HTTPBody`, parsed by ``ServerSentEventParser``.
struct ServerSentEventSequence: AsyncSequence, Sendable {
    typealias Element = ServerSentEvent
    let body: HTTPBody
    let limit: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: HTTPBody.AsyncIterator
        var parser: ServerSentEventParser
        var ready: [ServerSentEvent] = []
        var readyIndex = 0
        var finished = false

        mutating func next() async throws -> ServerSentEvent? {
            while true {
                if readyIndex < ready.count {
                    defer { readyIndex += 1 }
                    return ready[readyIndex]
                }
                ready.removeAll(keepingCapacity: true)
                readyIndex = 0
                guard !finished else { return nil }
                guard let chunk = try await chunks.next() else {
                    finished = true   // an event without its blank line is dropped, as the standard says
                    return nil
                }
                try parser.consume(chunk, into: &ready)
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: body.makeAsyncIterator(), parser: ServerSentEventParser(limit: limit))
    }
}
