#ifndef CCOURIER_FILE_STATUS_H
#define CCOURIER_FILE_STATUS_H

#include <stdint.h>

/// What `lstat`, `fstat` or `fstatat` says of a file, in fields Swift can read on every
/// platform: Swift sees the fields of Glibc's `struct stat` only through CoreFoundation
/// (MemberImportVisibility), and Darwin, Glibc, Musl and Bionic name and type them differently.
typedef struct {
    /// 1: a regular file; 2: a directory; 0: anything else (a link, a FIFO, a socket, a device).
    int32_t kind;
    int64_t size;
    int64_t modifiedSeconds;
    int64_t modifiedNanoseconds;
    uint32_t owner;
    /// The permission bits (`0777`).
    uint32_t permissions;
} courier_file_status;

/// `lstat(path)` into `status`: 0, or the `errno` of the failure (`ENOENT`: nothing there).
int32_t courier_lstat(const char *path, courier_file_status *status);

/// `fstat(descriptor)` into `status`: what an open file is, whatever its name points to now.
/// 0, or the `errno` of the failure.
int32_t courier_fstat(int32_t descriptor, courier_file_status *status);

/// `fstatat(directory, name, AT_SYMLINK_NOFOLLOW)` into `status`: `name` inside the open
/// directory `directory`, not following a symbolic link. 0, or the `errno` of the failure.
int32_t courier_fstatat(int32_t directory, const char *name, courier_file_status *status);

#endif
