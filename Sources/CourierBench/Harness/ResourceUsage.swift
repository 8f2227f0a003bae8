import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// This process's resource usage: CPU time (every thread, user + system), peak and current
/// resident memory, and open file descriptors.
struct ResourceUsage: Sendable {
    /// User + system CPU time of the whole process so far, in seconds (`getrusage(RUSAGE_SELF)`).
    var cpuSeconds: Double
    /// The peak resident set size so far, in bytes (`ru_maxrss`).
    var peakRSS: Int

    /// The usage now.
    static func now() -> ResourceUsage {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return ResourceUsage(cpuSeconds: user + system, peakRSS: Int(usage.ru_maxrss) * 1024)  // ru_maxrss is in KiB on Linux
    }

    /// The resident set size now, in bytes (from `/proc/self/statm`; 0 where it does not exist).
    static func currentRSS() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The number of open file descriptors (sockets included), from `/proc/self/fd`.
    static func openFileDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }
}
