#ifndef PROCESS_PROBE_H
#define PROCESS_PROBE_H

#include <stddef.h>

/// Bytes the process has allocated with malloc and not freed, over every arena (glibc's
/// mallinfo2: in-use chunks plus mmapped blocks).
size_t process_probe_heap_in_use(void);

#endif
