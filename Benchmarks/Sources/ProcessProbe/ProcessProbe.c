#include "ProcessProbe.h"

#include <malloc.h>

size_t process_probe_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
