import Foundation

/// The benchmark's server: this same executable started with `--serve`, as a child process.
///
/// The child's stdin is a pipe that the parent holds open; closing it (``stop()``, or the parent
/// exiting for any reason) makes the server exit.
final class ServerProcess {
    /// The port the server listens on, on 127.0.0.1.
    let port: Int
    private let process: Process?
    private let stdinPipe: Pipe?

    private init(port: Int, process: Process?, stdinPipe: Pipe?) {
        self.port = port
        self.process = process
        self.stdinPipe = stdinPipe
    }

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// A server started by someone else (`courier-bench --serve`) on 127.0.0.1:`port`; ``stop()``
    /// leaves it running.
    static func external(port: Int) -> ServerProcess {
        ServerProcess(port: port, process: nil, stdinPipe: nil)
    }

    /// Starts the server and waits for the port it prints.
    static func start() throws -> ServerProcess {
        let process = Process()
        process.executableURL = executableURL()
        process.arguments = ["--serve"]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text), port > 0 else {
            process.terminate()
            throw OptionsError("the server did not report a port (it printed \"\(text)\")")
        }
        return ServerProcess(port: port, process: process, stdinPipe: input)
    }

    /// Runs this executable as a child with `arguments` and returns its standard output.
    static func runChild(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = executableURL()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OptionsError("courier-bench \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Stops the server and waits for it to exit.
    func stop() {
        try? stdinPipe?.fileHandleForWriting.close()
        process?.waitUntilExit()
    }

    /// This executable: `argv[0]` when it is a path (under valgrind `/proc/self/exe` is
    /// valgrind itself), else `/proc/self/exe`.
    static func executableURL() -> URL {
        let first = CommandLine.arguments[0]
        if first.contains("/") { return URL(fileURLWithPath: first) }
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        return Bundle.main.executableURL ?? URL(fileURLWithPath: first)
    }
}
