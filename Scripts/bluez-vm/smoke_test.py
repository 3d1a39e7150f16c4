#!/usr/bin/python3
"""Harness diagnostic, run inside the bluez-vm guest by Scripts/bluez-vm/smoke-test.

hci0 plays a card reader: a GATT application with the ISSC transparent-UART service
(every write to the write characteristic comes back as a notification) and two
advertisements with Duration 1 (so that btvirt keeps sending fresh advertising reports).
hci1 is the central: discover by name prefix, connect, StartNotify, write, read the echo,
disconnect. Prints timings; exits 0 on success, 1 with the failing step otherwise.
"""
import statistics
import sys
import time

import dbus
from dbus.mainloop.glib import DBusGMainLoop

from bluez_objects import BLUEZ, OBJMGR, PROPS, Advertisement, Application, Characteristic, Exported
from bluez_objects import wait_for as serve_until
SERVICE_UUID = "49535343-fe7d-4ae5-8fa9-9fafd205e455"
NOTIFY_UUID = "49535343-1e4d-4bd9-ba61-23c647249616"
WRITE_UUID = "49535343-8841-43f4-a8d4-ecbe34729bb3"
NAME = "VPOS3356-1A2B"
NAME_PREFIX = "VPOS3356-"
PAYLOAD = bytes([0x02, 0xC0, 0x01, 0x00, 0x00, 0x00, 0x54])
ROUND_TRIPS = 10
APP = "/cardreaderkit/smoke"

DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()


def uptime():
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


def fail(step, why):
    print(f"SMOKE FAIL: {step}: {why}", flush=True)
    sys.exit(1)


def wait_for(step, predicate, timeout):
    """Runs the GLib main loop until predicate() is true, at most timeout seconds."""
    if not serve_until(predicate, timeout):
        fail(step, f"timed out after {timeout} s")


def call(step, path, iface, method, *args, timeout=20):
    """Asynchronous D-Bus call to bluez (so this process can serve bluez meanwhile)."""
    result = {}
    getattr(dbus.Interface(bus.get_object(BLUEZ, path), iface), method)(
        *args,
        reply_handler=lambda *r: result.setdefault("ok", r),
        error_handler=lambda e: result.setdefault("err", e),
        timeout=timeout)
    wait_for(step, lambda: result, timeout + 1)
    if "err" in result:
        fail(step, f"{method}: {result['err'].get_dbus_name()}: {result['err'].get_dbus_message()}")
    return result["ok"][0] if result["ok"] else None


# --- Peripheral (hci0): GATT application and advertisements ---------------------------

t_start = uptime()
print(f"smoke: script started at guest uptime {t_start:.2f} s", flush=True)
service = Exported(bus, f"{APP}/service0", "org.bluez.GattService1",
                   {"UUID": SERVICE_UUID, "Primary": True})
notify_char = Characteristic(bus, service.path, 0, NOTIFY_UUID, ["notify"])
write_char = Characteristic(bus, service.path, 1, WRITE_UUID, ["write", "write-without-response"],
                            on_write=lambda value, options: notify_char.notify(value))  # echo
app = Application(bus, APP, [service, notify_char, write_char])
call("register GATT application on hci0", "/org/bluez/hci0", "org.bluez.GattManager1",
     "RegisterApplication", dbus.ObjectPath(APP), dbus.Dictionary({}, signature="sv"))
for i in range(2):
    adv = Advertisement(bus, f"{APP}/adv{i}", NAME)
    call(f"register advertisement {i} on hci0", "/org/bluez/hci0",
         "org.bluez.LEAdvertisingManager1", "RegisterAdvertisement",
         dbus.ObjectPath(adv.path), dbus.Dictionary({}, signature="sv"))
t_adv = uptime()
print(f"smoke: advertising as {NAME} at guest uptime {t_adv:.2f} s "
      f"(registration took {t_adv - t_start:.2f} s)", flush=True)

# --- Central (hci1) ------------------------------------------------------------------------
objects = {}  # path -> {interface: {property: value}}, kept current from signals


def on_added(path, ifaces):
    for iface, props in ifaces.items():
        objects.setdefault(str(path), {}).setdefault(str(iface), {}).update(props)


def on_removed(path, ifaces):
    for iface in ifaces:
        objects.get(str(path), {}).pop(str(iface), None)


def on_changed(iface, changed, invalidated, path=None):
    if path in objects or str(iface).startswith("org.bluez."):
        objects.setdefault(path, {}).setdefault(str(iface), {}).update(changed)
        if str(iface) == "org.bluez.GattCharacteristic1" and "Value" in changed:
            notifications.append((time.monotonic(), str(path), bytes(changed["Value"])))


notifications = []
# Subscribe first, then read the current state.
bus.add_signal_receiver(on_added, "InterfacesAdded", OBJMGR, BLUEZ)
bus.add_signal_receiver(on_removed, "InterfacesRemoved", OBJMGR, BLUEZ)
bus.add_signal_receiver(on_changed, "PropertiesChanged", PROPS, BLUEZ, path_keyword="path")
for path, ifaces in call("read bluez objects", "/", OBJMGR, "GetManagedObjects").items():
    on_added(path, ifaces)


def device(path):
    return objects.get(path, {}).get("org.bluez.Device1", {})


def find_reader():
    for path in list(objects):
        dev = device(path)
        if dev.get("Adapter") == "/org/bluez/hci1" and \
                str(dev.get("Name", dev.get("Alias", ""))).startswith(NAME_PREFIX):
            return path
    return None


# Forget a device left from an earlier discovery in this bluetoothd, for a fair timing.
old = find_reader()
if old:
    call("remove stale device", "/org/bluez/hci1", "org.bluez.Adapter1", "RemoveDevice",
         dbus.ObjectPath(old))
    objects.pop(old, None)

call("set discovery filter", "/org/bluez/hci1", "org.bluez.Adapter1", "SetDiscoveryFilter",
     dbus.Dictionary({"Transport": "le"}, signature="sv"))
t0 = time.monotonic()
call("start discovery", "/org/bluez/hci1", "org.bluez.Adapter1", "StartDiscovery")
wait_for(f"discover a device named {NAME_PREFIX}*", find_reader, 30)
t_discovery = time.monotonic() - t0
dev_path = find_reader()
call("stop discovery", "/org/bluez/hci1", "org.bluez.Adapter1", "StopDiscovery")
print(f"smoke: discovered {device(dev_path).get('Name')} ({dev_path}) in {t_discovery:.2f} s",
      flush=True)

t0 = time.monotonic()
for attempt in range(1, 4):
    result = {}
    dbus.Interface(bus.get_object(BLUEZ, dev_path), "org.bluez.Device1").Connect(
        reply_handler=lambda: result.setdefault("ok", True),
        error_handler=lambda e: result.setdefault("err", e), timeout=30)
    wait_for("connect", lambda: result, 31)
    if "ok" in result:
        break
    print(f"smoke: connect attempt {attempt} failed: {result['err'].get_dbus_message()}",
          flush=True)
else:
    fail("connect", "3 attempts failed")
wait_for("ServicesResolved", lambda: device(dev_path).get("ServicesResolved"), 30)
t_connect = time.monotonic() - t0
print(f"smoke: connected, services resolved in {t_connect:.2f} s", flush=True)


def char_path(uuid):
    for path, ifaces in objects.items():
        props = ifaces.get("org.bluez.GattCharacteristic1", {})
        if path.startswith(dev_path + "/") and str(props.get("UUID", "")).lower() == uuid:
            return path
    fail("find characteristics", f"no characteristic {uuid} under {dev_path}")


notify_path, write_path = char_path(NOTIFY_UUID), char_path(WRITE_UUID)
t0 = time.monotonic()
call("StartNotify", notify_path, "org.bluez.GattCharacteristic1", "StartNotify")
wait_for("Notifying", lambda: objects[notify_path]["org.bluez.GattCharacteristic1"]
         .get("Notifying"), 10)
t_notify = time.monotonic() - t0

round_trips = []
for i in range(ROUND_TRIPS):
    del notifications[:]
    t0 = time.monotonic()
    call("write", write_path, "org.bluez.GattCharacteristic1", "WriteValue",
         dbus.Array(PAYLOAD, signature="y"),
         dbus.Dictionary({"type": "request"}, signature="sv"))
    wait_for("echo notification", lambda: any(p == notify_path for _, p, _ in notifications), 10)
    t_rx, _, value = next(n for n in notifications if n[1] == notify_path)
    if value != PAYLOAD:
        fail("echo notification", f"got {value.hex(' ')}, expected {PAYLOAD.hex(' ')}")
    round_trips.append((t_rx - t0) * 1000)
print(f"smoke: StartNotify took {t_notify * 1000:.0f} ms; wrote {PAYLOAD.hex(' ')} and got it "
      f"back {ROUND_TRIPS} times", flush=True)

t0 = time.monotonic()
call("disconnect", dev_path, "org.bluez.Device1", "Disconnect")
wait_for("Connected false", lambda: not device(dev_path).get("Connected"), 15)
t_disconnect = time.monotonic() - t0

print("smoke: timings")
print(f"  kernel start -> advertising     {t_adv:6.2f} s (guest uptime)")
print(f"  discovery                       {t_discovery:6.2f} s")
print(f"  Connect -> ServicesResolved     {t_connect:6.2f} s")
print(f"  StartNotify -> Notifying        {t_notify * 1000:6.0f} ms")
print(f"  write -> notification           first {round_trips[0]:.0f} ms, median "
      f"{statistics.median(round_trips):.0f} ms, max {max(round_trips):.0f} ms "
      f"(n={ROUND_TRIPS})")
print(f"  Disconnect -> Connected false   {t_disconnect:6.2f} s")
print("SMOKE OK", flush=True)
