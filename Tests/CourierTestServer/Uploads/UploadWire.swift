import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// What ``UploadServer``'s connections share on the wire: the draft's field values, raw
/// HTTP/1.1 answers, and the ways a connection ends.
enum UploadWire {
    /// The media type of an append's body.
    static let partialUpload = "application/partial-upload"
    /// Where a connection goes after an answer.
    enum After { case keep, close }

    /// Writes an answer: `Content-Length` on every one but a `204` (RFC 9110 §8.6), and
    /// `Connection: close` before a close. Records the status.
    static func write(_ status: Int, _ fields: [(String, String)], body: [UInt8] = [], to channel: any Channel,
                      state: NIOLockedValueBox<UploadServer.State>, then after: After) {
        state.withLockedValue { $0.stats.statuses.append(status) }
        var text = "HTTP/1.1 \(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        if status != 204 { text += "Content-Length: \(body.count)\r\n" }
        if after == .close { text += "Connection: close\r\n" }
        var buffer = ByteBuffer(string: text + "\r\n")
        buffer.writeBytes(body)
        let written = channel.writeAndFlush(buffer)
        if after == .close { written.whenComplete { _ in UploadWire.closeGracefully(channel) } }
    }

    /// Writes `100 Continue` when the request waits for it before sending its body.
    static func continueIfExpected(_ head: HTTPRequestHead, channel: any Channel) {
        guard head.headers.first(name: "Expect")?.lowercased() == "100-continue" else { return }
        channel.writeAndFlush(ByteBuffer(string: "HTTP/1.1 100 Continue\r\n\r\n"), promise: nil)
    }

    /// Ends a connection with a close (FIN) that lets what was written arrive: the output is
    /// shut once the writes are out, what the client still sends is read (the handler drops it:
    /// a socket closed with unread bytes would send a reset), and the socket is closed when the
    /// client closes its end, or after two seconds.
    static func closeGracefully(_ channel: any Channel) {
        channel.close(mode: .output, promise: nil)
        channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
    }

    /// Ends a connection with a reset (RST), as ``RangeServer`` does.
    static func reset(_ channel: any Channel) {
        if let provider = channel as? any SocketOptionProvider {
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
        } else {
            channel.close(promise: nil)
        }
    }

    /// A problem details body (RFC 9457) of one of the draft's problem types, e.g. `completed-upload`.
    static func problem(_ type: String, title: String, _ members: [(String, Int)] = []) -> [UInt8] {
        var json = "{\"type\":\"https://iana.org/assignments/http-problem-types#\(type)\",\"title\":\"\(title)\""
        for (name, value) in members { json += ",\"\(name)\":\(value)" }
        return Array((json + "}").utf8)
    }

    /// The final answer's body: the completed upload as JSON.
    static func finalAnswer(_ completed: UploadServer.Completed) -> [UInt8] {
        let json = "{\"id\":\(quoted(completed.id)),\"size\":\(completed.size),\"sha256\":\"\(completed.sha256Hex)\","
            + "\"method\":\(quoted(completed.method)),\"path\":\(quoted(completed.path)),"
            + "\"contentType\":\(quoted(completed.contentType ?? ""))}"
        return Array(json.utf8)
    }

    /// `string` as a JSON string.
    static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A structured field's bare item (RFC 9651): the value before any parameter, trimmed.
    private static func bareItem(_ value: String?) -> String? {
        guard let value else { return nil }
        let item = value.firstIndex(of: ";").map { value[..<$0] } ?? value[...]
        return item.trimmingCharacters(in: .whitespaces)
    }

    /// A structured Boolean (`?0`, `?1`), as `Upload-Complete` carries; nil when absent or invalid.
    static func boolean(_ value: String?) -> Bool? {
        switch bareItem(value) {
        case "?1"?: return true
        case "?0"?: return false
        default: return nil
        }
    }

    /// A non-negative structured Integer (at most 15 digits), as `Upload-Offset` and
    /// `Upload-Length` carry; nil when absent or invalid.
    static func integer(_ value: String?) -> Int? {
        guard let item = bareItem(value), (1...15).contains(item.utf8.count),
              item.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int(item)
    }

    /// A media type without its parameters, lowercased.
    static func mediaType(_ value: String?) -> String? {
        bareItem(value)?.lowercased()
    }
}
