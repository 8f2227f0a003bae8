import Foundation

/// The benchmark's server: this same executable started with `--serve`, as a child process.
///
/// The child's stdin is a pipe that the parent holds open; closing it (``stop()``, or the parent
/// exiting for any reason) makes the server exit. A line written to it makes the server print
/// how many connections it has accepted (``acceptedConnections()``).
final class ServerProcess: Sendable {
    /// The port the server listens on, on 127.0.0.1.
    let port: Int
    private let process: Process?
    private let control: ControlChannel?

    private init(port: Int, process: Process?, control: ControlChannel?) {
        self.port = port
        self.process = process
        self.control = control
    }

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// A server started by someone else (`courier-bench --serve`) on 127.0.0.1:`port`; ``stop()``
    /// leaves it running, and connections cannot be counted.
    static func external(port: Int) -> ServerProcess {
        ServerProcess(port: port, process: nil, control: nil)
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
        let control = ControlChannel(input: input.fileHandleForWriting, output: output.fileHandleForReading)
        let text = control.readLine()
        guard let port = Int(text), port > 0 else {
            process.terminate()
            throw OptionsError("the server did not report a port (it printed \"\(text)\")")
        }
        return ServerProcess(port: port, process: process, control: control)
    }

    /// The number of TCP connections the server has accepted so far (`nil` for an external
    /// server).
    func acceptedConnections() -> Int? {
        control.flatMap { Int($0.ask()) }
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
        control?.close()
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

/// The server's stdin and stdout as seen from the parent: line-based questions and answers.
///
/// `@unchecked Sendable`: the file handles and the `pending` buffer are only touched under
/// `lock`, so one question and its answer never interleave with another's.
private final class ControlChannel: @unchecked Sendable {  // safe: see above, all access under `lock`
    private let lock = NSLock()
    private let input: FileHandle
    private let output: FileHandle
    private var pending = Data()

    init(input: FileHandle, output: FileHandle) {
        self.input = input
        self.output = output
    }

    /// Writes an empty line and returns the line the server answers with.
    func ask() -> String {
        lock.withLock {
            input.write(Data("\n".utf8))
            return unlockedReadLine()
        }
    }

    /// The next line the server prints, without its newline.
    func readLine() -> String {
        lock.withLock { unlockedReadLine() }
    }

    /// Closes the server's stdin (it exits).
    func close() {
        lock.withLock { try? input.close() }
    }

    private func unlockedReadLine() -> String {
        while !pending.contains(UInt8(ascii: "\n")) {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
        }
        let end = pending.firstIndex(of: UInt8(ascii: "\n")) ?? pending.endIndex
        let line = pending[pending.startIndex..<end]
        pending = end < pending.endIndex ? Data(pending[pending.index(after: end)...]) : Data()
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
