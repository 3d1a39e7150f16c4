/*
 * Raw libdbus, the reference for the D-Bus figures of Benchmarks/run. One source, built
 * twice: linked against libdbus-1.so.3 (-DCARDREADERKIT_LIBDBUS_LINKED), and through the
 * SDK's run-time loader (Sources/CDBus); the same calls either way.
 *
 * Usage: dbus-reference BUS-ADDRESS
 * Prints one line per workload: "name<TAB>nanoseconds per operation".
 */
#include "CDBus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TYPE_BYTE = 'y', TYPE_STRING = 's', TYPE_ARRAY = 'a', TYPE_VARIANT = 'v', TYPE_DICT_ENTRY = 'e' };
enum { MESSAGE_METHOD_CALL = 1, MESSAGE_METHOD_RETURN = 2, MESSAGE_SIGNAL = 4 };

static const char *const characteristic = "/org/bluez/hci0/dev_00_AA_01_00_00_23/service0010/char0011";
static unsigned char value[244];

static double now_ns(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec * 1e9 + (double)time.tv_nsec;
}

static void fail(const char *what) {
    fprintf(stderr, "dbus-reference: %s\n", what);
    exit(1);
}

static void append_string(DBusMessageIter *iter, const char *string) {
    if (!dbus_message_iter_append_basic(iter, TYPE_STRING, &string)) fail("append string");
}

/* PropertiesChanged("org.bluez.GattCharacteristic1", {"Value": <ay 244 bytes>}, []), as
 * bluetoothd sends it for each notification. */
static DBusMessage *properties_changed(void) {
    DBusMessage *message = dbus_message_new(MESSAGE_SIGNAL);
    if (message == NULL || !dbus_message_set_path(message, characteristic) ||
        !dbus_message_set_interface(message, "org.freedesktop.DBus.Properties") ||
        !dbus_message_set_member(message, "PropertiesChanged"))
        fail("new signal");
    dbus_message_set_no_reply(message, 1);
    DBusMessageIter iter, dictionary, entry, variant, bytes, invalidated;
    dbus_message_iter_init_append(message, &iter);
    append_string(&iter, "org.bluez.GattCharacteristic1");
    dbus_message_iter_open_container(&iter, TYPE_ARRAY, "{sv}", &dictionary);
    dbus_message_iter_open_container(&dictionary, TYPE_DICT_ENTRY, NULL, &entry);
    append_string(&entry, "Value");
    dbus_message_iter_open_container(&entry, TYPE_VARIANT, "ay", &variant);
    dbus_message_iter_open_container(&variant, TYPE_ARRAY, "y", &bytes);
    const unsigned char *base = value;
    dbus_message_iter_append_fixed_array(&bytes, TYPE_BYTE, &base, (int)sizeof value);
    dbus_message_iter_close_container(&variant, &bytes);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(&dictionary, &entry);
    dbus_message_iter_close_container(&iter, &dictionary);
    dbus_message_iter_open_container(&iter, TYPE_ARRAY, "s", &invalidated);
    dbus_message_iter_close_container(&iter, &invalidated);
    return message;
}

/* Reads the notification's bytes back out of a PropertiesChanged signal. */
static int read_value(DBusMessage *message) {
    DBusMessageIter iter, dictionary, entry, variant, bytes;
    const char *string = NULL;
    if (!dbus_message_iter_init(message, &iter) || dbus_message_iter_get_arg_type(&iter) != TYPE_STRING) return -1;
    dbus_message_iter_get_basic(&iter, &string);
    dbus_message_iter_next(&iter);
    dbus_message_iter_recurse(&iter, &dictionary);
    dbus_message_iter_recurse(&dictionary, &entry);
    dbus_message_iter_get_basic(&entry, &string);
    dbus_message_iter_next(&entry);
    dbus_message_iter_recurse(&entry, &variant);
    if (dbus_message_iter_get_element_type(&variant) != TYPE_BYTE) return -1;
    dbus_message_iter_recurse(&variant, &bytes);
    const unsigned char *data = NULL;
    int count = 0;
    dbus_message_iter_get_fixed_array(&bytes, &data, &count);
    return count;
}

/* MARK: A connection driven by hand, as the SDK's dispatch thread drives its own. */

static dbus_uint32_t awaited_serial;
static int replies;
static int signals;
/* Calls sent and not yet answered, by serial (the 8-in-flight workload). */
#define IN_FLIGHT 8
static dbus_uint32_t outstanding[IN_FLIGHT];
static int outstanding_count;

static DBusHandlerResult filter(DBusConnection *connection, DBusMessage *message, void *user_data) {
    (void)connection;
    (void)user_data;
    int type = dbus_message_get_type(message);
    if (type == MESSAGE_METHOD_RETURN && dbus_message_get_reply_serial(message) == awaited_serial) {
        replies += 1;
        return DBUS_HANDLER_RESULT_HANDLED;
    }
    if (type == MESSAGE_METHOD_RETURN) {
        dbus_uint32_t serial = dbus_message_get_reply_serial(message);
        for (int i = 0; i < outstanding_count; i++) {
            if (outstanding[i] == serial) {
                outstanding[i] = outstanding[--outstanding_count];
                return DBUS_HANDLER_RESULT_HANDLED;
            }
        }
    }
    if (type == MESSAGE_SIGNAL && dbus_message_get_path(message) != NULL &&
        strcmp(dbus_message_get_path(message), characteristic) == 0) {
        if (read_value(message) == (int)sizeof value) signals += 1;
        return DBUS_HANDLER_RESULT_HANDLED;
    }
    return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
}

static DBusConnection *connect_to(const char *address) {
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_connection_open_private(address, &error);
    if (connection == NULL || !dbus_bus_register(connection, &error)) fail(error.message ? error.message : "connect");
    dbus_connection_set_exit_on_disconnect(connection, 0);
    dbus_connection_add_filter(connection, filter, NULL, NULL);
    return connection;
}

static DBusMessage *bus_call(const char *member, const char *argument) {
    DBusMessage *call = dbus_message_new(MESSAGE_METHOD_CALL);
    dbus_message_set_destination(call, "org.freedesktop.DBus");
    dbus_message_set_path(call, "/org/freedesktop/DBus");
    dbus_message_set_interface(call, "org.freedesktop.DBus");
    dbus_message_set_member(call, member);
    DBusMessageIter iter;
    dbus_message_iter_init_append(call, &iter);
    append_string(&iter, argument);
    return call;
}

/* Sends a call to the bus daemon and reads until its reply has been dispatched. */
static void round_trip(DBusConnection *connection, const char *member, const char *argument) {
    DBusMessage *call = bus_call(member, argument);
    int before = replies;
    if (!dbus_connection_send(connection, call, &awaited_serial)) fail("send");
    dbus_message_unref(call);
    while (replies == before) {
        if (!dbus_connection_read_write(connection, 1000)) fail("connection lost");
        while (dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS) {}
    }
}

static void send_in_flight_call(DBusConnection *connection) {
    DBusMessage *call = bus_call("NameHasOwner", "org.freedesktop.DBus");
    if (!dbus_connection_send(connection, call, &outstanding[outstanding_count++])) fail("send");
    dbus_message_unref(call);
}

/* Makes `calls` calls keeping IN_FLIGHT of them in flight: a new one leaves as soon as a
 * reply arrives. */
static void round_trips_in_flight(DBusConnection *connection, int calls) {
    int sent = 0;
    while (sent < calls && outstanding_count < IN_FLIGHT) {
        send_in_flight_call(connection);
        sent += 1;
    }
    while (outstanding_count > 0) {
        if (!dbus_connection_read_write(connection, 1000)) fail("connection lost");
        while (dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS) {}
        while (sent < calls && outstanding_count < IN_FLIGHT) {
            send_in_flight_call(connection);
            sent += 1;
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 2) fail("usage: dbus-reference BUS-ADDRESS");
    for (size_t i = 0; i < sizeof value; i++) value[i] = (unsigned char)i;
#ifndef CARDREADERKIT_LIBDBUS_LINKED
    char detail[256];
    if (cardreaderkit_libdbus_load("libdbus-1.so.3", detail, sizeof detail, NULL) != CARDREADERKIT_LIBDBUS_LOADED)
        fail(detail);
#endif

    /* 1. Build a notification's signal and read its value back: about 40 libdbus calls,
     * no I/O. */
    const int messages = 200000;
    double start = now_ns();
    for (int i = 0; i < messages; i++) {
        DBusMessage *message = properties_changed();
        if (read_value(message) != (int)sizeof value) fail("read back");
        dbus_message_unref(message);
    }
    printf("build and read a 244-byte PropertiesChanged\t%.1f\n", (now_ns() - start) / messages);

    /* 2. A method call to the bus daemon and its reply. */
    DBusConnection *client = connect_to(argv[1]);
    const int calls = 5000;
    for (int i = 0; i < 200; i++) round_trip(client, "NameHasOwner", "org.freedesktop.DBus");
    start = now_ns();
    for (int i = 0; i < calls; i++) round_trip(client, "NameHasOwner", "org.freedesktop.DBus");
    printf("method call round trip through dbus-daemon\t%.1f\n", (now_ns() - start) / calls);

    /* 2b. The same calls, 8 in flight at any time: time per call. */
    round_trips_in_flight(client, 200);
    start = now_ns();
    round_trips_in_flight(client, calls);
    printf("method calls, 8 in flight, per call\t%.1f\n", (now_ns() - start) / calls);

    /* 3. Notifications: one connection emits PropertiesChanged signals in windows of 64,
     * the other receives and reads each. */
    DBusConnection *emitter = connect_to(argv[1]);
    char rule[256];
    snprintf(rule, sizeof rule, "type='signal',interface='org.freedesktop.DBus.Properties',path='%s'", characteristic);
    round_trip(client, "AddMatch", rule);
    const int window = 64;
    const int total = 64 * 400;
    DBusMessage *signal = properties_changed();
    start = now_ns();
    for (int sent = 0; sent < total; sent += window) {
        int target = signals + window;
        for (int i = 0; i < window; i++) {
            if (!dbus_connection_send(emitter, signal, NULL)) fail("send signal");
        }
        dbus_connection_flush(emitter);
        while (signals < target) {
            if (!dbus_connection_read_write(client, 1000)) fail("connection lost");
            while (dbus_connection_dispatch(client) == DBUS_DISPATCH_DATA_REMAINS) {}
        }
    }
    printf("244-byte notification signal, emitted and received\t%.1f\n", (now_ns() - start) / total);
    dbus_message_unref(signal);

    dbus_connection_close(emitter);
    dbus_connection_unref(emitter);
    dbus_connection_close(client);
    dbus_connection_unref(client);
    return 0;
}
