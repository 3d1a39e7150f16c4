#define _GNU_SOURCE // RTLD_DEFAULT
#include <dlfcn.h>

#include "pcsc_driver_interface.h"
#include <stddef.h>

/// pcscd's `void log_msg(const int priority, const char *fmt, ...)`: a C variadic function,
/// which Swift cannot call, hence this file.
typedef void (*pcscd_log_msg)(const int priority, const char *fmt, ...);

void pcsc_driver_log(int priority, const char *message) {
    // Looked up on every call: the driver logs rarely, and dlsym is thread safe.
    pcscd_log_msg log_msg = (pcscd_log_msg)dlsym(RTLD_DEFAULT, "log_msg");
    if (log_msg != NULL && message != NULL) log_msg(priority, "%s", message);
}
