/*
 * The part of libdbus's C API that BLETransport uses, declared from the D-Bus reference
 * documentation (libdbus 1.x, soname libdbus-1.so.3), so that building needs no libdbus
 * headers, pkg-config file or import library.
 *
 * The library itself is opened at run time by cardreaderkit_libdbus_load(), which
 * resolves every function below before the first call. Each function is a static inline
 * wrapper with libdbus's own name that calls through the resolved table: one indirect
 * call, as a call through the PLT of a linked library is.
 *
 * Calling a wrapper before a successful load is a programming error (the table holds
 * null pointers): BLETransport loads the library on every entry point that reaches
 * libdbus (opening a connection) and throws a typed error when it cannot.
 */
#ifndef CARDREADERKIT_CDBUS_H
#define CARDREADERKIT_CDBUS_H

#include <stddef.h>
#include <stdint.h>

/* MARK: Types */

typedef uint32_t dbus_uint32_t;
/* libdbus's boolean: a 32-bit unsigned integer, TRUE = 1, FALSE = 0. */
typedef dbus_uint32_t dbus_bool_t;

/* Opaque handles. */
typedef struct DBusConnection DBusConnection;
typedef struct DBusMessage DBusMessage;

/*
 * An error: `name` and `message` are public, the rest is private. Part of libdbus's
 * stable ABI; callers allocate it (usually on the stack) and pass it to dbus_error_init().
 */
typedef struct DBusError {
    const char *name;
    const char *message;
    unsigned int dummy1 : 1;
    unsigned int dummy2 : 1;
    unsigned int dummy3 : 1;
    unsigned int dummy4 : 1;
    unsigned int dummy5 : 1;
    void *padding1;
} DBusError;

/*
 * A message iterator: no public fields, but its size and alignment are part of libdbus's
 * stable ABI, since callers allocate it (usually on the stack).
 */
typedef struct DBusMessageIter {
    void *dummy1;
    void *dummy2;
    dbus_uint32_t dummy3;
    int dummy4;
    int dummy5;
    int dummy6;
    int dummy7;
    int dummy8;
    int dummy9;
    int dummy10;
    int dummy11;
    int pad1;
    void *pad2;
    void *pad3;
} DBusMessageIter;

/* MARK: Constants */

typedef enum {
    DBUS_BUS_SESSION = 0,
    DBUS_BUS_SYSTEM = 1,
    DBUS_BUS_STARTER = 2,
} DBusBusType;

typedef enum {
    DBUS_DISPATCH_DATA_REMAINS = 0,
    DBUS_DISPATCH_COMPLETE = 1,
    DBUS_DISPATCH_NEED_MEMORY = 2,
} DBusDispatchStatus;

typedef enum {
    DBUS_HANDLER_RESULT_HANDLED = 0,
    DBUS_HANDLER_RESULT_NOT_YET_HANDLED = 1,
    DBUS_HANDLER_RESULT_NEED_MEMORY = 2,
} DBusHandlerResult;

/* MARK: Callbacks */

typedef DBusHandlerResult (*DBusHandleMessageFunction)(DBusConnection *connection, DBusMessage *message,
                                                       void *user_data);
typedef void (*DBusFreeFunction)(void *memory);

/* MARK: Functions
 *
 * One list, expanded into the table of resolved pointers, the wrappers and the loader's
 * symbol names. R: functions that return a value; V: functions that return void.
 * Arguments: return type, name, parameter list, argument list.
 */
#define CARDREADERKIT_LIBDBUS_FUNCTIONS(R, V)                                                              \
    /* Errors and memory */                                                                                \
    V(void, dbus_error_init, (DBusError * error), (error))                                                 \
    V(void, dbus_error_free, (DBusError * error), (error))                                                 \
    V(void, dbus_free, (void *memory), (memory))                                                           \
    /* Threads: makes libdbus lock its connections (libdbus >= 1.7 also does on its own) */              \
    R(dbus_bool_t, dbus_threads_init_default, (void), ())                                                  \
    /* Connections */                                                                                      \
    R(DBusConnection *, dbus_bus_get_private, (DBusBusType type, DBusError * error), (type, error))       \
    R(DBusConnection *, dbus_connection_open_private, (const char *address, DBusError *error),            \
      (address, error))                                                                                    \
    R(dbus_bool_t, dbus_bus_register, (DBusConnection * connection, DBusError * error), (connection, error)) \
    R(const char *, dbus_bus_get_unique_name, (DBusConnection * connection), (connection))                \
    V(void, dbus_connection_close, (DBusConnection * connection), (connection))                           \
    V(void, dbus_connection_unref, (DBusConnection * connection), (connection))                           \
    V(void, dbus_connection_set_exit_on_disconnect, (DBusConnection * connection, dbus_bool_t exit),      \
      (connection, exit))                                                                                  \
    R(dbus_bool_t, dbus_connection_get_is_connected, (DBusConnection * connection), (connection))         \
    R(dbus_bool_t, dbus_connection_can_send_type, (DBusConnection * connection, int type), (connection, type)) \
    R(dbus_bool_t, dbus_connection_get_socket, (DBusConnection * connection, int *fd), (connection, fd))  \
    R(dbus_bool_t, dbus_connection_add_filter,                                                             \
      (DBusConnection * connection, DBusHandleMessageFunction function, void *user_data,                  \
       DBusFreeFunction free_data_function),                                                               \
      (connection, function, user_data, free_data_function))                                               \
    V(void, dbus_connection_remove_filter,                                                                 \
      (DBusConnection * connection, DBusHandleMessageFunction function, void *user_data),                 \
      (connection, function, user_data))                                                                   \
    R(dbus_bool_t, dbus_connection_read_write, (DBusConnection * connection, int timeout_milliseconds),   \
      (connection, timeout_milliseconds))                                                                  \
    R(DBusDispatchStatus, dbus_connection_dispatch, (DBusConnection * connection), (connection))          \
    R(dbus_bool_t, dbus_connection_has_messages_to_send, (DBusConnection * connection), (connection))     \
    V(void, dbus_connection_flush, (DBusConnection * connection), (connection))                           \
    R(dbus_bool_t, dbus_connection_send,                                                                   \
      (DBusConnection * connection, DBusMessage * message, dbus_uint32_t * client_serial),                \
      (connection, message, client_serial))                                                                \
    /* Messages */                                                                                         \
    R(DBusMessage *, dbus_message_new, (int message_type), (message_type))                                 \
    V(void, dbus_message_unref, (DBusMessage * message), (message))                                       \
    R(int, dbus_message_get_type, (DBusMessage * message), (message))                                     \
    R(dbus_uint32_t, dbus_message_get_serial, (DBusMessage * message), (message))                         \
    R(dbus_uint32_t, dbus_message_get_reply_serial, (DBusMessage * message), (message))                   \
    R(dbus_bool_t, dbus_message_set_reply_serial, (DBusMessage * message, dbus_uint32_t reply_serial),    \
      (message, reply_serial))                                                                             \
    R(const char *, dbus_message_get_path, (DBusMessage * message), (message))                            \
    R(dbus_bool_t, dbus_message_set_path, (DBusMessage * message, const char *object_path),              \
      (message, object_path))                                                                              \
    R(const char *, dbus_message_get_interface, (DBusMessage * message), (message))                       \
    R(dbus_bool_t, dbus_message_set_interface, (DBusMessage * message, const char *iface), (message, iface)) \
    R(const char *, dbus_message_get_member, (DBusMessage * message), (message))                          \
    R(dbus_bool_t, dbus_message_set_member, (DBusMessage * message, const char *member), (message, member)) \
    R(const char *, dbus_message_get_error_name, (DBusMessage * message), (message))                      \
    R(dbus_bool_t, dbus_message_set_error_name, (DBusMessage * message, const char *name), (message, name)) \
    R(const char *, dbus_message_get_destination, (DBusMessage * message), (message))                     \
    R(dbus_bool_t, dbus_message_set_destination, (DBusMessage * message, const char *destination),       \
      (message, destination))                                                                              \
    R(const char *, dbus_message_get_sender, (DBusMessage * message), (message))                          \
    R(dbus_bool_t, dbus_message_get_no_reply, (DBusMessage * message), (message))                         \
    V(void, dbus_message_set_no_reply, (DBusMessage * message, dbus_bool_t no_reply), (message, no_reply)) \
    /* Reading a message's arguments */                                                                    \
    R(dbus_bool_t, dbus_message_iter_init, (DBusMessage * message, DBusMessageIter * iter), (message, iter)) \
    R(dbus_bool_t, dbus_message_iter_next, (DBusMessageIter * iter), (iter))                              \
    R(int, dbus_message_iter_get_arg_type, (DBusMessageIter * iter), (iter))                              \
    R(int, dbus_message_iter_get_element_type, (DBusMessageIter * iter), (iter))                          \
    R(char *, dbus_message_iter_get_signature, (DBusMessageIter * iter), (iter))                          \
    V(void, dbus_message_iter_recurse, (DBusMessageIter * iter, DBusMessageIter * sub), (iter, sub))      \
    V(void, dbus_message_iter_get_basic, (DBusMessageIter * iter, void *value), (iter, value))            \
    V(void, dbus_message_iter_get_fixed_array, (DBusMessageIter * iter, void *value, int *n_elements),    \
      (iter, value, n_elements))                                                                           \
    /* Writing a message's arguments */                                                                    \
    V(void, dbus_message_iter_init_append, (DBusMessage * message, DBusMessageIter * iter), (message, iter)) \
    R(dbus_bool_t, dbus_message_iter_append_basic, (DBusMessageIter * iter, int type, const void *value), \
      (iter, type, value))                                                                                 \
    R(dbus_bool_t, dbus_message_iter_append_fixed_array,                                                   \
      (DBusMessageIter * iter, int element_type, const void *value, int n_elements),                      \
      (iter, element_type, value, n_elements))                                                             \
    R(dbus_bool_t, dbus_message_iter_open_container,                                                       \
      (DBusMessageIter * iter, int type, const char *contained_signature, DBusMessageIter *sub),          \
      (iter, type, contained_signature, sub))                                                              \
    R(dbus_bool_t, dbus_message_iter_close_container, (DBusMessageIter * iter, DBusMessageIter * sub),    \
      (iter, sub))                                                                                         \
    V(void, dbus_message_iter_abandon_container, (DBusMessageIter * iter, DBusMessageIter * sub), (iter, sub)) \
    /* Messages as bytes in the wire format (Fuzz/'s dbus-message target) */                              \
    R(DBusMessage *, dbus_message_demarshal, (const char *data, int length, DBusError *error),            \
      (data, length, error))                                                                              \
    R(int, dbus_message_demarshal_bytes_needed, (const char *data, int length), (data, length))           \
    R(dbus_bool_t, dbus_message_marshal, (DBusMessage * message, char **data, int *length),               \
      (message, data, length))

#ifdef CARDREADERKIT_LIBDBUS_LINKED
/* A program linked against libdbus (the benchmarks' reference) gets plain declarations. */
#define CARDREADERKIT_LIBDBUS_DECLARATION(type, name, parameters, arguments) extern type name parameters;
CARDREADERKIT_LIBDBUS_FUNCTIONS(CARDREADERKIT_LIBDBUS_DECLARATION, CARDREADERKIT_LIBDBUS_DECLARATION)
#undef CARDREADERKIT_LIBDBUS_DECLARATION
#else
/* The resolved functions, one pointer each, named as in libdbus. */
typedef struct CardReaderKitLibDBus {
#define CARDREADERKIT_LIBDBUS_POINTER(type, name, parameters, arguments) type(*name) parameters;
    CARDREADERKIT_LIBDBUS_FUNCTIONS(CARDREADERKIT_LIBDBUS_POINTER, CARDREADERKIT_LIBDBUS_POINTER)
#undef CARDREADERKIT_LIBDBUS_POINTER
} CardReaderKitLibDBus;

/* The table the wrappers call through: written once, by the first successful load. */
extern CardReaderKitLibDBus cardreaderkit_libdbus;

#define CARDREADERKIT_LIBDBUS_RETURNING(type, name, parameters, arguments)                                 \
    static inline type name parameters { return cardreaderkit_libdbus.name arguments; }
#define CARDREADERKIT_LIBDBUS_VOID(type, name, parameters, arguments)                                      \
    static inline void name parameters { cardreaderkit_libdbus.name arguments; }
CARDREADERKIT_LIBDBUS_FUNCTIONS(CARDREADERKIT_LIBDBUS_RETURNING, CARDREADERKIT_LIBDBUS_VOID)
#undef CARDREADERKIT_LIBDBUS_RETURNING
#undef CARDREADERKIT_LIBDBUS_VOID
#endif

/* MARK: Loading */

typedef enum {
    /* Every function is resolved; the wrappers may be called. */
    CARDREADERKIT_LIBDBUS_LOADED = 0,
    /* dlopen() failed: the library is not installed, not found or not loadable. */
    CARDREADERKIT_LIBDBUS_LIBRARY_UNAVAILABLE = 1,
    /* The library opened but lacks a function (too old, or not libdbus). */
    CARDREADERKIT_LIBDBUS_SYMBOL_MISSING = 2,
} CardReaderKitLibDBusLoadResult;

/*
 * Opens `library` (a soname such as "libdbus-1.so.3", or a path) and resolves every
 * function above. Thread-safe. The first successful load fills the table; later calls
 * resolve again but leave the table as it is; a failed load never touches it.
 *
 * On failure, `detail` (of `detail_size` bytes, may be NULL) receives dlerror()'s text,
 * and for CARDREADERKIT_LIBDBUS_SYMBOL_MISSING `*missing_symbol` (may be NULL) points at the
 * name of the first function that could not be resolved (a string with static lifetime).
 */
CardReaderKitLibDBusLoadResult cardreaderkit_libdbus_load(const char *library, char *detail, size_t detail_size,
                                                          const char **missing_symbol);

#endif
