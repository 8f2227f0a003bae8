import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes the temporary upload files a process that crashed or was killed left behind.
///
/// A multipart form with files, or a body larger than ``URLSessionTransport/maxRequestBodySize``,
/// is written to `courier-upload-*` in the transport's temporary directory and removed when its
/// task ends; a process that dies mid-upload cannot remove it. When a transport starts, files of
/// that name in its directory that are regular files (not links), owned by this process's user,
/// and last written more than ``staleAfter`` ago are removed — once per directory and process,
/// on a background queue (the directory may be large, and file I/O must not hold a cooperative
/// thread). Another process's upload in progress is younger than the bound: its file is written
/// just before its task starts.
enum TemporaryUploadSweep {
    /// How old a leftover upload file must be to be removed: a day.
    static let staleAfter: TimeInterval = 24 * 60 * 60

    private static let swept = Locked<Set<String>>([])
    private static let queue = DispatchQueue(label: "courier.urlsession.upload-sweep", qos: .utility)

    /// Sweeps `directory` on a background queue, unless this process did already.
    static func start(in directory: URL) {
        let path = directory.standardizedFileURL.path
        guard swept.withLock({ $0.insert(path).inserted }) else { return }
        queue.async { _ = sweep(directory, now: Date()) }
    }

    /// Removes the stale upload files of this user in `directory`; returns their names.
    @discardableResult
    static func sweep(_ directory: URL, now: Date, olderThan age: TimeInterval = staleAfter) -> [String] {
        let files = FileManager.default
        guard let names = try? files.contentsOfDirectory(atPath: directory.path) else { return [] }
        let user = geteuid()
        var removed: [String] = []
        for name in names where name.hasPrefix(UploadPlan.temporaryFilePrefix) {
            let path = directory.appendingPathComponent(name).path
            // Not following links: a link planted under the name is not this transport's file.
            guard let attributes = try? files.attributesOfItem(atPath: path),
                  attributes[.type] as? FileAttributeType == .typeRegular,
                  (attributes[.ownerAccountID] as? NSNumber)?.uint32Value == user,
                  let modified = attributes[.modificationDate] as? Date,
                  now.timeIntervalSince(modified) > age else { continue }
            if unlink(path) == 0 { removed.append(name) }
        }
        return removed
    }
}
