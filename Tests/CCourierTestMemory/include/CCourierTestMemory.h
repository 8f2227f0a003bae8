#ifndef CCOURIER_TEST_MEMORY_H
#define CCOURIER_TEST_MEMORY_H

#include <stdint.h>

/// Bytes of the C heap in use by this process (glibc's `mallinfo2`: small blocks plus mapped
/// ones), or -1 where the C library cannot say. The soak's memory accounting: unlike resident
/// memory, which `free` does not give back to the system, it falls when a block is freed, so a
/// leak of a few hundred KiB shows beside the noise.
int64_t courier_heap_bytes_in_use(void);

#endif
