import Foundation

/// The demo's command-line flags.
struct DemoOptions {
    /// Where the API is; `nil` starts the embedded server.
    var baseURL: URL?
    /// The key sent as `X-API-Key`.
    var apiKey = "demo-key"
    /// Which transport the client uses.
    var transport: TransportChoice = .asyncHTTPClient

    enum TransportChoice: String {
        case asyncHTTPClient = "ahc"
        case urlSession = "urlsession"
    }

    static let help = """
    courier-demo — drives a small users API with a Courier client and prints what happens.

    USAGE: swift run courier-demo [--base-url <url>] [--api-key <key>] [--transport ahc|urlsession]

    With no --base-url, the demo starts its own API server on 127.0.0.1 (a port the OS picks),
    runs every step against it, stops it and exits 0.

    OPTIONS:
      --base-url <url>     Use the API at <url> instead of the embedded server
                           (it must serve /v1/users like the embedded one).
      --api-key <key>      The X-API-Key to send (default: demo-key).
      --transport <name>   ahc (AsyncHTTPClient, default) or urlsession.
      -h, --help           Show this help.
    """

    /// Parses `arguments` (without the program name); throws a message for bad input.
    static func parse(_ arguments: [String]) throws -> DemoOptions? {
        var options = DemoOptions()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            func value() throws -> String {
                guard let value = rest.popFirst() else { throw DemoUsageError(message: "\(flag) needs a value") }
                return value
            }
            switch flag {
            case "-h", "--help": return nil
            case "--base-url":
                let text = try value()
                guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
                    throw DemoUsageError(message: "--base-url must be an http(s) URL, got '\(text)'")
                }
                options.baseURL = url
            case "--api-key": options.apiKey = try value()
            case "--transport":
                let text = try value()
                guard let choice = TransportChoice(rawValue: text) else {
                    throw DemoUsageError(message: "--transport must be ahc or urlsession, got '\(text)'")
                }
                options.transport = choice
            default: throw DemoUsageError(message: "unknown option '\(flag)' (see --help)")
            }
        }
        return options
    }
}

/// A command-line mistake, printed with a pointer to `--help`.
struct DemoUsageError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
