#include "CCourierFileStatus.h"

#include <errno.h>
#include <sys/stat.h>

/// The one copy of `struct stat`'s fields into `courier_file_status`, for both calls.
static void courier_copy_status(const struct stat *info, courier_file_status *status) {
    status->kind = S_ISREG(info->st_mode) ? 1 : (S_ISDIR(info->st_mode) ? 2 : 0);
    status->size = (int64_t)info->st_size;
#if defined(__APPLE__)
    status->modifiedSeconds = (int64_t)info->st_mtimespec.tv_sec;
    status->modifiedNanoseconds = (int64_t)info->st_mtimespec.tv_nsec;
#else
    status->modifiedSeconds = (int64_t)info->st_mtim.tv_sec;
    status->modifiedNanoseconds = (int64_t)info->st_mtim.tv_nsec;
#endif
    status->owner = (uint32_t)info->st_uid;
    status->permissions = (uint32_t)(info->st_mode & 0777);
}

int32_t courier_lstat(const char *path, courier_file_status *status) {
    struct stat info;
    if (lstat(path, &info) != 0) return errno;
    courier_copy_status(&info, status);
    return 0;
}

int32_t courier_fstat(int32_t descriptor, courier_file_status *status) {
    struct stat info;
    if (fstat(descriptor, &info) != 0) return errno;
    courier_copy_status(&info, status);
    return 0;
}
