import Foundation
import NIOCore

/// What the fault server does for one request.
enum FaultRoute {
    /// Write these bytes (head and body, as raw HTTP/1.1), then do `after`.
    case respond([UInt8], after: After)
    /// Write the head, then the body one byte every `interval`.
    case drip(head: [UInt8], bytes: Int, interval: TimeAmount)
    /// Never answer (the connection stays open until the client gives up).
    case never
    /// Write these pieces one after the other, `interval` apart, then keep the connection open.
    case pieces([[UInt8]], interval: TimeAmount)

    /// What happens to the connection after a response.
    enum After { case keepOpen, close, reset, closeAfter(TimeAmount) }

    /// The route for a request target such as `/truncate` or `/drip?ms=50&bytes=20`.
    static func route(for target: String, hit: Int = 1) -> FaultRoute {
        let components = URLComponents(string: target)
        let path = components?.path ?? target
        func int(_ name: String, _ fallback: Int) -> Int {
            components?.queryItems?.first { $0.name == name }?.value.flatMap(Int.init) ?? fallback
        }
        func text(_ name: String) -> String? { components?.queryItems?.first { $0.name == name }?.value }
        let json = Array(#"{"ok":true}"#.utf8)

        switch path {
        case "/ok-then-close":
            // A keep-alive response, then the server drops the idle connection: the client's
            // pool holds a dead connection for its next request.
            return .respond(head(200, ["Content-Type": "application/json", "Content-Length": "\(json.count)"]) + json,
                            after: .closeAfter(.milliseconds(Int64(int("ms", 50)))))
        case "/no-body":
            // A response that never has a body — `status` 304 (with an `ETag`) or 204, or a `HEAD`
            // answer that names `length` — and the connection stays open for the next request.
            var fields = ["ETag": "\"v1\""]
            if let length = text("length") { fields["Content-Length"] = length }
            return .respond(head(int("status", 304), fields), after: .keepOpen)
        case "/ok":
            return .respond(head(200, ["Content-Type": "application/json", "Content-Length": "\(json.count)"]) + json, after: .keepOpen)
        case "/truncate":
            return .respond(head(200, ["Content-Type": "application/json", "Content-Length": "1000"]) + Array(repeating: UInt8(ascii: " "), count: 100), after: .close)
        case _ where path.hasPrefix("/truncate-once/"):
            let body = Array(#"{"ok":true,"padding":"\#(String(repeating: "x", count: 200))"}"#.utf8)
            let head = head(200, ["Content-Type": "application/json", "Content-Length": "\(body.count)"])
            return hit == 1 ? .respond(head + body.prefix(50), after: .close) : .respond(head + body, after: .keepOpen)
        case _ where path.hasPrefix("/partial-once/"):
            // The first request for a key: a 200 cut short (100 of 1,000 bytes, then the
            // connection closes); every later one: `status` (default 204) without a body.
            let cut = head(200, ["Content-Type": "application/octet-stream", "Content-Length": "1000"]) + Array(repeating: UInt8(ascii: "x"), count: 100)
            return hit == 1 ? .respond(cut, after: .close) : .respond(head(int("status", 204), [:]), after: .keepOpen)
        case _ where path.hasPrefix("/retry-after/"):
            // The first `times` requests (default 1) for a key answer `status` (503 or 429) with
            // `Retry-After` in `form` `seconds` (default) or `date` (an IMF-fixdate `seconds` ahead).
            guard hit > int("times", 1) else {
                let seconds = int("seconds", 1)
                let value = text("form") == "date" ? httpDate(Date().addingTimeInterval(Double(seconds))) : "\(seconds)"
                return .respond(head(int("status", 503), ["Retry-After": value, "Content-Length": "0"]), after: .keepOpen)
            }
            return .respond(head(200, ["Content-Type": "application/json", "Content-Length": "\(json.count)"]) + json, after: .keepOpen)
        case "/declared-stall":
            // A head declaring 1 GiB, 100 bytes of it, then silence (the connection stays open).
            return .respond(head(200, ["Content-Type": "application/octet-stream", "Content-Length": "\(1 << 30)"]) + Array(repeating: UInt8(ascii: "x"), count: 100),
                            after: .keepOpen)
        case "/reset":
            return .respond(head(200, ["Content-Type": "application/json", "Content-Length": "1000"]) + Array(repeating: UInt8(ascii: " "), count: 100), after: .reset)
        case "/reset-before-head":
            return .respond([], after: .reset)
        case "/close-before-head":
            return .respond([], after: .close)
        case "/never":
            return .never
        case "/drip":
            return .drip(head: head(200, ["Content-Type": "application/octet-stream", "Content-Length": "\(int("bytes", 20))"]),
                         bytes: int("bytes", 20), interval: .milliseconds(Int64(int("ms", 100))))
        case "/stacked":
            var body = json
            let layers = int("layers", 5)
            for _ in 0..<layers { body = Gzip.compress(body) }
            let encoding = Array(repeating: "gzip", count: layers).joined(separator: ", ")
            return .respond(head(200, ["Content-Type": "application/json", "Content-Encoding": encoding, "Content-Length": "\(body.count)"]) + body, after: .keepOpen)
        case "/no-content-stacked":
            // A 204 whose head names stacked codings: no body follows, so nothing is to decode.
            return .respond(head(204, ["Content-Encoding": "gzip, br"]), after: .keepOpen)
        case "/bomb":
            let body = DeflateZeros.gzipBomb(inflatedSize: int("mb", 100) * 1024 * 1024)
            return .respond(head(200, ["Content-Type": "application/json", "Content-Encoding": "gzip", "Content-Length": "\(body.count)"]) + body, after: .keepOpen)
        case "/compressed-json":
            // A legitimate JSON array of `kb` KiB (default 2 MiB) that gzip shrinks ~300:1.
            let body = Gzip.compress(compressibleJSON(bytes: int("kb", 2048) * 1024))
            return .respond(head(200, ["Content-Type": "application/json", "Content-Encoding": "gzip", "Content-Length": "\(body.count)"]) + body, after: .keepOpen)
        case "/encoded":
            // A body in a coding Courier does not decode (`br`, `zstd`, anything): bytes that are
            // not the content.
            let body: [UInt8] = [0x1B, 0x0A, 0x00, 0xF8, 0xA5, 0x40, 0x62, 0x12, 0x00, 0x00]
            return .respond(head(200, ["Content-Type": "application/json", "Content-Encoding": text("coding") ?? "br", "Content-Length": "\(body.count)"]) + body, after: .keepOpen)
        case "/huge-header":
            let value = String(repeating: "a", count: int("kb", 512) * 1024)
            return .respond(head(200, ["X-Huge": value, "Content-Length": "0"]), after: .keepOpen)
        case "/many-headers":
            var fields: [(String, String)] = []
            for index in 0..<int("n", 20_000) { fields.append(("X-H\(index)", "v")) }
            return .respond(headList(200, fields + [("Content-Length", "0")]), after: .keepOpen)
        case "/short-headers":
            // `n` header lines of four bytes each (`h:` and no value), default 65,000: within
            // libcurl's 300 KiB for a head, the most lines a server can make it hand on. With
            // `pieces`, the head goes out in that many pieces `ms` apart (a slow hostile head).
            var bytes = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n".utf8)
            bytes.reserveCapacity(bytes.count + int("n", 65_000) * 4 + 2)
            for _ in 0..<int("n", 65_000) { bytes += Array("h:\r\n".utf8) }
            bytes += Array("\r\n".utf8)
            let pieces = max(1, int("pieces", 1))
            guard pieces > 1 else { return .respond(bytes, after: .keepOpen) }
            let size = (bytes.count + pieces - 1) / pieces
            return .pieces(stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) },
                           interval: .milliseconds(Int64(int("ms", 100))))
        case "/folded-cookies":
            // `lines` Set-Cookie lines (default 3), each `n` empty cookies long (`a=,a=,…`,
            // default 23,000): URLSession on Linux folds them into one value, which splits back
            // into more fields than a head may have.
            let line = Array(repeating: "a=", count: int("n", 23_000)).joined(separator: ",")
            let fields = Array(repeating: ("Set-Cookie", line), count: int("lines", 3))
            return .respond(headList(200, fields + [("Content-Length", "0")]), after: .keepOpen)
        case "/location":
            return .respond(headList(302, [("Location", text("to") ?? ""), ("Content-Length", "0")]), after: .keepOpen)
        default:
            return .respond(head(404, ["Content-Length": "0"]), after: .keepOpen)
        }
    }

    /// `[{"id":1,"name":"user","active":true},…]` of about `bytes` bytes.
    static func compressibleJSON(bytes: Int) -> [UInt8] {
        let item = Array(#"{"id":1,"name":"user","active":true}"#.utf8)
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(bytes + item.count + 2)
        while out.count < bytes {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: item)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// An HTTP-date (IMF-fixdate, RFC 9110 §5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func head(_ status: Int, _ fields: [String: String]) -> [UInt8] {
        headList(status, fields.sorted { $0.key < $1.key })
    }

    static func headList(_ status: Int, _ fields: [(String, String)]) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }
}
