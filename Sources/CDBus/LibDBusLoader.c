#include "CDBus.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

CardReaderKitLibDBus cardreaderkit_libdbus;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static int table_filled;

/* The structs' layout as libdbus documents it, checked where the declarations are used. */
_Static_assert(sizeof(DBusMessageIter) == 4 * sizeof(void *) + sizeof(dbus_uint32_t) + 9 * sizeof(int),
               "DBusMessageIter: 4 pointers, a 32-bit integer and 9 ints");
_Static_assert(_Alignof(DBusMessageIter) == _Alignof(void *), "DBusMessageIter is pointer-aligned");
_Static_assert(sizeof(DBusError) == 4 * sizeof(void *), "DBusError: 2 pointers, a bit-field word, 1 pointer");
_Static_assert(_Alignof(DBusError) == _Alignof(void *), "DBusError is pointer-aligned");

static void copy_dlerror(char *detail, size_t detail_size) {
    if (detail == NULL || detail_size == 0) return;
    const char *text = dlerror();
    snprintf(detail, detail_size, "%s", text != NULL ? text : "unknown dynamic loader error");
}

CardReaderKitLibDBusLoadResult cardreaderkit_libdbus_load(const char *library, char *detail, size_t detail_size,
                                                          const char **missing_symbol) {
    if (detail != NULL && detail_size > 0) detail[0] = '\0';
    if (missing_symbol != NULL) *missing_symbol = NULL;

    /* RTLD_LOCAL: libdbus's symbols stay out of the global namespace, so a libdbus that
     * the host program links itself is not disturbed. */
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        copy_dlerror(detail, detail_size);
        return CARDREADERKIT_LIBDBUS_LIBRARY_UNAVAILABLE;
    }

    CardReaderKitLibDBus resolved;
#define CARDREADERKIT_LIBDBUS_RESOLVE(type, name, parameters, arguments)                                   \
    {                                                                                                      \
        (void)dlerror();                                                                                   \
        void *symbol = dlsym(handle, #name);                                                               \
        if (symbol == NULL) {                                                                              \
            copy_dlerror(detail, detail_size);                                                             \
            if (missing_symbol != NULL) *missing_symbol = #name;                                           \
            dlclose(handle);                                                                               \
            return CARDREADERKIT_LIBDBUS_SYMBOL_MISSING;                                                   \
        }                                                                                                  \
        /* POSIX guarantees that a data pointer from dlsym converts to a function pointer. */              \
        *(void **)&resolved.name = symbol;                                                                 \
    }
    CARDREADERKIT_LIBDBUS_FUNCTIONS(CARDREADERKIT_LIBDBUS_RESOLVE, CARDREADERKIT_LIBDBUS_RESOLVE)
#undef CARDREADERKIT_LIBDBUS_RESOLVE

    pthread_mutex_lock(&table_lock);
    int keep_handle = !table_filled;
    if (keep_handle) {
        cardreaderkit_libdbus = resolved;
        table_filled = 1;
    }
    pthread_mutex_unlock(&table_lock);
    /* The library stays open for the life of the process once its functions are in the
     * table; a later load only drops the reference it took. */
    if (!keep_handle) dlclose(handle);
    return CARDREADERKIT_LIBDBUS_LOADED;
}
