@testable import Courier
import OpenAPIRuntime
import Testing

/// The event-stream parser: the HTML standard's rules, whatever the chunking, with every line and
/// event bounded.
@Suite("ServerSentEventParser")
struct ServerSentEventParserTests {
    private static func parse(_ chunks: [String], limit: Int = 1 << 20) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser(limit: limit)
        var events: [ServerSentEvent] = []
        for chunk in chunks { try parser.consume(Array(chunk.utf8), into: &events) }
        return events
    }

    private static let stream = "\u{FEFF}: comment\r\nid: 7\r\nevent: greeting\r\ndata: hello\r\ndata:world\r\n\r\nretry: 1500\nretry: 12x\ndata\n\n"
        + "id: 8\rdata:  two spaces\r\rdata: unfinished"

    @Test("LF, CR and CRLF, a byte-order mark, comments, multi-line data, retry digits only")
    func rules() throws {
        let events = try Self.parse([Self.stream])
        #expect(events.count == 3)
        #expect(events[0] == ServerSentEvent(id: "7", event: "greeting", data: "hello\nworld"))
        #expect(events[1] == ServerSentEvent(data: "", retry: 1500))
        #expect(events[2] == ServerSentEvent(id: "8", data: " two spaces"))
    }

    @Test("the same events whatever the chunking, a CRLF or the byte-order mark split included")
    func chunking() throws {
        let whole = try Self.parse([Self.stream])
        let bytes = Array(Self.stream.utf8)
        for size in [1, 2, 3, 5, 7, 64] {
            var parser = ServerSentEventParser(limit: 1 << 20)
            var events: [ServerSentEvent] = []
            var index = 0
            while index < bytes.count {
                try parser.consume(bytes[index..<min(bytes.count, index + size)], into: &events)
                index += size
            }
            #expect(events == whole, "chunks of \(size) bytes")
        }
    }

    @Test("a line longer than the limit is refused, even when it never ends")
    func longLine() {
        let line = String(repeating: "a", count: 4096)
        #expect(throws: BodyLimitExceeded.self) { try Self.parse(["data: " + line], limit: 1024) }
        #expect(throws: BodyLimitExceeded.self) {
            try Self.parse(Array(repeating: String(repeating: "b", count: 100), count: 20), limit: 1024)
        }
    }

    @Test("an event whose lines together pass the limit is refused")
    func largeEvent() {
        let lines = String(repeating: "data: " + String(repeating: "c", count: 100) + "\n", count: 20)
        #expect(throws: BodyLimitExceeded.self) { try Self.parse([lines + "\n"], limit: 1024) }
        #expect((try? Self.parse([lines + "\n"], limit: 4096))?.count == 1)
    }

    @Test("a 4 MiB line in 16 KiB chunks under a 8 MiB limit is one event")
    func largeLineAccepted() throws {
        var chunks = ["data: "]
        chunks += Array(repeating: String(repeating: "d", count: 16 * 1024), count: 256)
        chunks.append("\n\n")
        let events = try Self.parse(chunks, limit: 8 << 20)
        #expect(events.count == 1)
        #expect(events.first?.data?.utf8.count == 4 << 20)
    }
    @Test("an event of 100,000 short data lines is joined in place, one line per LF")
    func manyDataLines() throws {
        let lines = String(repeating: "data: x\n", count: 100_000) + "\n"
        let events = try Self.parse([lines], limit: 1 << 20)
        #expect(events.count == 1)
        #expect(events.first?.data?.utf8.count == 100_000 * 2 - 1)
    }
}
