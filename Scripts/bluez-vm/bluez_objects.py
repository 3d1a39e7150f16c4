"""What the bluez-vm guest's Python programs share (smoke_test.py, lrzsz_reader.py,
sb_central.py): GATT objects and advertisements exported to bluetoothd with dbus-python,
and a bounded wait that keeps the GLib main loop serving bluetoothd meanwhile."""
import time

import dbus
import dbus.service
from gi.repository import GLib

BLUEZ = "org.bluez"
PROPS = "org.freedesktop.DBus.Properties"
OBJMGR = "org.freedesktop.DBus.ObjectManager"
GATT_CHRC = "org.bluez.GattCharacteristic1"


class Exported(dbus.service.Object):
    """An object with one interface whose properties bluetoothd reads."""

    def __init__(self, bus, path, iface, props):
        self.path, self.iface, self.props = path, iface, props
        super().__init__(bus, path)

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, iface):
        return self.props

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, iface, name):
        return self.props[name]

    @dbus.service.signal(PROPS, signature="sa{sv}as")
    def PropertiesChanged(self, iface, changed, invalidated):
        pass


class Characteristic(Exported):
    """Characteristic `index` of the service at `service`: `read()` gives its value,
    `on_write(value, options)` takes WriteValue's; `notify(data)` sends a notification."""

    def __init__(self, bus, service, index, uuid, flags, read=None, on_write=None):
        super().__init__(bus, f"{service}/char{index}", GATT_CHRC, {
            "UUID": uuid, "Service": dbus.ObjectPath(service),  # an object path, or BlueZ finds no service
            "Flags": dbus.Array(flags, signature="s"), "Value": dbus.Array([], signature="y")})
        self.read, self.on_write = read, on_write

    @dbus.service.method(GATT_CHRC, in_signature="a{sv}", out_signature="ay")
    def ReadValue(self, options):
        return dbus.Array(self.read() if self.read else self.props["Value"], signature="y")

    @dbus.service.method(GATT_CHRC, in_signature="aya{sv}")
    def WriteValue(self, value, options):
        self.on_write(bytes(value), options)

    @dbus.service.method(GATT_CHRC)
    def StartNotify(self):
        pass

    @dbus.service.method(GATT_CHRC)
    def StopNotify(self):
        pass

    def notify(self, data):
        self.props["Value"] = dbus.Array(data, signature="y")
        self.PropertiesChanged(self.iface, {"Value": self.props["Value"]}, [])


class Application(dbus.service.Object):
    """The GATT application RegisterApplication is given: its objects' properties."""

    def __init__(self, bus, path, objects):
        self.objects = objects
        super().__init__(bus, path)

    @dbus.service.method(OBJMGR, out_signature="a{oa{sa{sv}}}")
    def GetManagedObjects(self):
        return {o.path: {o.iface: o.props} for o in self.objects}


class Advertisement(Exported):
    """A connectable advertisement of `name` for 1 s at a time (two of them rotate, so a
    virtual controller keeps sending fresh advertising reports)."""

    def __init__(self, bus, path, name):
        super().__init__(bus, path, "org.bluez.LEAdvertisement1", {
            "Type": "peripheral", "LocalName": name, "Duration": dbus.UInt16(1)})

    @dbus.service.method("org.bluez.LEAdvertisement1")
    def Release(self):
        pass


def wait_for(predicate, timeout):
    """Runs the GLib main loop until predicate() is true (True) or `timeout` seconds
    pass (False)."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        GLib.timeout_add(5, lambda: False)  # wake up at least every 5 ms
        context.iteration(True)
    return True
