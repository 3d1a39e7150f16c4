#ifndef CARDREADERKIT_CDBUS_SHIM_H
#define CARDREADERKIT_CDBUS_SHIM_H
#include <dbus/dbus.h>
#endif
