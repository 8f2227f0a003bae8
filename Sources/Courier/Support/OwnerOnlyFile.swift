import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A new file that only its owner can read and write (`0600`), for a temporary copy of a
/// request body: a multipart form with its files, a spooled stream.
///
/// Written by hand: `FileManager.createFile(atPath:contents:attributes:)` creates the file
/// with the default mode (`0644` under the usual umask) and sets the attributes afterwards, so
/// another local user could open it in between and read what is written later; and it
/// replaces a file already there. `open(2)` with `O_CREAT | O_EXCL` and the mode does both at
/// once.
package enum OwnerOnlyFile {
    /// Creates the file at `url` (failing when something is already there) and opens it for
    /// writing; the handle closes the descriptor when released.
    package static func create(at url: URL) throws -> FileHandle {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSFilePathErrorKey: url.path,
                NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(code)),
                NSLocalizedDescriptionKey: "could not create \(url.path): \(String(cString: strerror(code)))",
            ])
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }
}
