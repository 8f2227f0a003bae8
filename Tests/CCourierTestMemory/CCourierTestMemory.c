#include "CCourierTestMemory.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>

int64_t courier_heap_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (int64_t)(info.uordblks + info.hblkhd);
}
#else
int64_t courier_heap_bytes_in_use(void) {
    return -1;
}
#endif
