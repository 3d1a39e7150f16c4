#!/usr/bin/python3
"""A firmware update with lrzsz's sb in place of CardReaderKit, for the bluez-vm guest: the
reference the SDK's rate is measured against (Benchmarks/ymodem-over-bluez).

A central written apart from the SDK (dbus-python): finds the reader by name on an adapter,
connects, subscribes to TX, sends ENTER FIRMWARE UPDATE (reader documentation §7.1) with
the image's size and, once the reader answers 00, runs `sb --ymodem -k IMAGE` (1 KiB
blocks) with its standard output cut into writes of MTU − 3 bytes, each a Write Request
written after the previous one's acknowledgement, and TX notifications on its standard
input. Prints one line: `sb: BYTES bytes in SECONDS s, RATE bytes/s, exit STATUS`, the
time from the reader's 00 to sb's exit (the span the SDK's own rate covers).

Usage: sb_central.py --adapter hci1 --reader VPOS3356-0101 --mtu 247 IMAGE
"""
import argparse
import binascii
import os
import struct
import subprocess
import sys
import time

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

from bluez_objects import BLUEZ, GATT_CHRC, OBJMGR, PROPS, wait_for as serve_until
TX_UUID = "49535343-1e4d-4bd9-ba61-23c647249616"
RX_UUID = "49535343-8841-43f4-a8d4-ecbe34729bb3"

parser = argparse.ArgumentParser()
parser.add_argument("--adapter", default="hci1")
parser.add_argument("--reader", default="VPOS3356")
parser.add_argument("--mtu", type=int, default=247)
parser.add_argument("image")
args = parser.parse_args()

DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
context = GLib.MainContext.default()
objects = {}
notified = bytearray()


def fail(why):
    print(f"sb: failed: {' '.join(str(why).split())}", flush=True)
    sys.exit(1)


def wait_for(what, predicate, timeout):
    if not serve_until(predicate, timeout):
        fail(f"{what}: nothing within {timeout} s")


def call(path, interface, method, *arguments, timeout=30):
    result = {}
    getattr(dbus.Interface(bus.get_object(BLUEZ, path), interface), method)(
        *arguments, reply_handler=lambda *r: result.setdefault("ok", r),
        error_handler=lambda e: result.setdefault("error", e), timeout=timeout)
    wait_for(method, lambda: result, timeout + 1)
    if "error" in result:
        fail(f"{method}: {result['error'].get_dbus_name()}: {result['error'].get_dbus_message()}")
    return result["ok"][0] if result["ok"] else None


def on_added(path, interfaces):
    for interface, properties in interfaces.items():
        objects.setdefault(str(path), {}).setdefault(str(interface), {}).update(properties)


def on_removed(path, interfaces):
    for interface in interfaces:
        objects.get(str(path), {}).pop(str(interface), None)


def on_changed(interface, changed, invalidated, path=None):
    objects.setdefault(str(path), {}).setdefault(str(interface), {}).update(changed)
    if interface == GATT_CHRC and "Value" in changed and str(path) == tx_path:
        notified.extend(bytes(changed["Value"]))


tx_path = None
bus.add_signal_receiver(on_added, "InterfacesAdded", OBJMGR, BLUEZ)
bus.add_signal_receiver(on_removed, "InterfacesRemoved", OBJMGR, BLUEZ)
bus.add_signal_receiver(on_changed, "PropertiesChanged", PROPS, BLUEZ, path_keyword="path")
for path, interfaces in call("/", OBJMGR, "GetManagedObjects").items():
    on_added(path, interfaces)


def device():
    for path, interfaces in objects.items():
        properties = interfaces.get("org.bluez.Device1", {})
        if properties.get("Adapter") == f"/org/bluez/{args.adapter}" and \
                str(properties.get("Name", "")).startswith(args.reader):
            return path
    return None


adapter = f"/org/bluez/{args.adapter}"
call(adapter, "org.bluez.Adapter1", "SetDiscoveryFilter", dbus.Dictionary({"Transport": "le"}, signature="sv"))
call(adapter, "org.bluez.Adapter1", "StartDiscovery")
wait_for("the reader", device, 30)
call(adapter, "org.bluez.Adapter1", "StopDiscovery")
path = device()
for attempt in range(3):
    result = {}
    dbus.Interface(bus.get_object(BLUEZ, path), "org.bluez.Device1").Connect(
        reply_handler=lambda: result.setdefault("ok", True), error_handler=lambda e: result.setdefault("error", e),
        timeout=30)
    wait_for("Connect", lambda: result, 31)
    if "ok" in result:
        break
else:
    fail("Connect: 3 attempts failed")
wait_for("ServicesResolved", lambda: objects[path]["org.bluez.Device1"].get("ServicesResolved"), 30)


def characteristic(uuid):
    for candidate, interfaces in objects.items():
        if candidate.startswith(path + "/") and str(interfaces.get(GATT_CHRC, {}).get("UUID", "")).lower() == uuid:
            return candidate
    fail(f"no characteristic {uuid}")


tx_path, rx_path = characteristic(TX_UUID), characteristic(RX_UUID)
call(tx_path, GATT_CHRC, "StartNotify")
size = args.mtu - 3


def write(data):
    for start in range(0, len(data), size):
        call(rx_path, GATT_CHRC, "WriteValue", dbus.Array(data[start:start + size], signature="y"),
             dbus.Dictionary({"type": "request"}, signature="sv"))


image = os.path.getsize(args.image)
body = bytes([0xC0, 0x10, 0x00, 0x04]) + struct.pack(">I", image)
write(b"\x02" + body + struct.pack(">H", binascii.crc_hqx(body, 0xFFFF)))
wait_for("ENTER FIRMWARE UPDATE's answer", lambda: len(notified) >= 8, 5)
if bytes(notified[:6]) != bytes([0x02, 0xC0, 0x10, 0x00, 0x01, 0x00]):
    fail(f"ENTER FIRMWARE UPDATE answered {bytes(notified[:8]).hex(' ')}")
del notified[:8]

started = time.monotonic()
sb = subprocess.Popen(["sb", "--ymodem", "-k", "--quiet", args.image], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                      stderr=subprocess.DEVNULL)
os.set_blocking(sb.stdout.fileno(), False)
while sb.poll() is None:
    try:
        chunk = os.read(sb.stdout.fileno(), 4096)
    except BlockingIOError:
        chunk = b""
    if chunk:
        write(chunk)
    if notified:
        sb.stdin.write(bytes(notified))
        sb.stdin.flush()
        del notified[:]
    if time.monotonic() - started > 600:
        sb.kill()
        fail("sb did not finish within 600 s")
    if not chunk:
        GLib.timeout_add(2, lambda: False)
        context.iteration(True)
status = sb.wait()
seconds = time.monotonic() - started
print(f"sb: {image} bytes in {seconds:.1f} s, {image / seconds:.0f} bytes/s, exit {status}", flush=True)
call(path, "org.bluez.Device1", "Disconnect")
sys.exit(status)
