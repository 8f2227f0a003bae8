/// The figures of one run of one scenario: a number of requests, sequential or concurrent.
struct Measurement: Sendable, Codable {
    /// Client CPU time per request, in microseconds (user + system of the whole process).
    var cpuMicros: Double
    /// The system (kernel) part of ``cpuMicros``, in microseconds per request.
    var systemCPUMicros: Double
    /// The process's context switches per request (voluntary + involuntary): how often a
    /// thread slept and was woken, or was preempted.
    var contextSwitches: Double
    /// Requests completed per second of wall-clock time.
    var requestsPerSecond: Double
    /// The process's peak resident memory after the run, in bytes (monotonic over the process).
    var peakRSS: Int
    /// The resident memory right after the run, in bytes.
    var currentRSS: Int
    /// Open file descriptors right after the run (sockets included).
    var openFiles: Int
    /// TCP connections the server accepted during the run (`nil` when the server is not ours
    /// to ask: `--port`).
    var connectionsOpened: Int?
}

/// How requests are issued in a run.
enum RunMode: String, Sendable, CaseIterable, Codable {
    /// One request after the other.
    case sequential
    /// A fixed number in flight at all times.
    case concurrent
}
