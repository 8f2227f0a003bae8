import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// This process's resource usage: CPU time (every thread, user + system), peak and current
/// resident memory, and open file descriptors.
struct ResourceUsage: Sendable {
    /// User + system CPU time of the whole process so far, in seconds (`getrusage(RUSAGE_SELF)`).
    var cpuSeconds: Double
    /// The system (kernel) part of ``cpuSeconds``: system calls, and the scheduler's work when
    /// one thread wakes another. Callgrind counts none of it.
    var systemSeconds: Double
    /// Context switches of the whole process so far, voluntary (a thread waits) and involuntary
    /// (a thread is preempted): `ru_nvcsw + ru_nivcsw`.
    var contextSwitches: Int
    /// The peak resident set size so far, in bytes: `VmHWM` of `/proc/self/status` (the peak
    /// of this process image, reset by ``resetPeak()``), or `ru_maxrss` where there is no
    /// `/proc`. (`ru_maxrss` alone would not do: Linux carries it over from the parent across
    /// `fork` + `exec`, so a child spawned by a 60 MiB parent starts with a 60 MiB "peak".)
    var peakRSS: Int

    /// The usage now.
    static func now() -> ResourceUsage {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        let peak = statusField("VmHWM") ?? Int(usage.ru_maxrss) * 1024  // both in KiB on Linux
        return ResourceUsage(cpuSeconds: user + system, systemSeconds: system,
                             contextSwitches: Int(usage.ru_nvcsw) + Int(usage.ru_nivcsw), peakRSS: peak)
    }

    /// Resets the peak (`VmHWM`) to the current resident size, so that the next peak measures
    /// only what follows (`echo 5 > /proc/self/clear_refs`, Linux ≥ 4.0). Returns whether it worked.
    @discardableResult
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    /// A `kB` field of `/proc/self/status`, in bytes.
    private static func statusField(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.dropFirst(name.count + 1).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
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
