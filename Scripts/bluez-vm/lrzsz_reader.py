#!/usr/bin/python3
"""A card reader written apart from CardReaderKit, run in the bluez-vm guest: a GATT
peripheral with the reader's documented profile (reader documentation §1) whose firmware
update receiver is lrzsz's `rb`, an independent YModem implementation (§7).

Frame mode (§2-§5): GET INFO, CANCEL, ICC POWER ON / APDU / POWER OFF / STATUS (a card is
always in the slot; an APDU is answered with its own data field and 90 00), ENTER FIRMWARE
UPDATE. Frames are parsed here, CRCs by Python's binascii (CRC-16/CCITT-FALSE is crc_hqx
with initial value 0xFFFF).

Firmware update: after ENTER FIRMWARE UPDATE is answered, RX writes go to rb's standard input
as bluetoothd delivers them through WriteValue, and rb's standard output goes out as TX
notifications. When the host has sent the empty block 0 that ends the batch and rb has
exited, the bridge checks the image as §7.3 says (magic, model, lengths, CRC-32 by zlib) in
place of rb's own last ACK: a valid image is answered ACK, the central is disconnected, the
reader "restarts" (stops advertising for 2 s) and advertises the new version; an invalid
one is answered CAN CAN and the old firmware stays. Every received image's SHA-256 and the
verdict are logged, so a test compares them with the image it sent.

READ MAGNETIC STRIPE (§3) is answered at once with the documentation's own response for
test card 4111 1111 1111 1111 (§9), as if it had been swiped.

With --secure the reader is one from firmware 3.0 (§1.1): RX and TX need an encrypted link
(encrypt-write, encrypt-notify); it pairs by Just Works, as the default agent of this
bluetoothd answering only for its own adapter's devices, and accepts a new bond only in
pairing mode, the first 120 s (its adapter is bondable only then, so the kernel answers
Pairing Not Supported afterwards). Its firmware revision defaults to 3.0.2. With --display
as well it is a model with a display: GET INFO sets capability bit 4, its agent is
DisplayOnly, so pairing is Passkey Entry, and the six digits it "displays" are logged as
"displays passkey NNNNNN".

Faults, as a reader's own hardware would make them:
  --uart BYTES:RATE   the MCU behind a UART: a receive buffer of BYTES drained into rb at
                      RATE bytes per second; bytes that arrive when it is full are dropped
                      (counted in the log), as a UART overflow drops them
  --corrupt-at N      flips the Nth byte (0-based) of the YModem stream once
  --drop-at N         disconnects the central once N bytes of the YModem stream arrived

Notifications carry at most MTU − 5 bytes (see send()).

Usage: lrzsz_reader.py --adapter hci0 --name VPOS3356-0101 [--version 2.4.1] [--mtu 247]
       [--uart 512:11520] [--corrupt-at N] [--drop-at N] [--secure [--display]]
Prints "serving NAME on ADAPTER" once advertising; runs until SIGINT or SIGTERM.
"""
import argparse
import binascii
import hashlib
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

from bluez_objects import BLUEZ, PROPS, Advertisement, Application, Characteristic, Exported
SERVICE_UUID = "49535343-fe7d-4ae5-8fa9-9fafd205e455"
TX_UUID = "49535343-1e4d-4bd9-ba61-23c647249616"
RX_UUID = "49535343-8841-43f4-a8d4-ecbe34729bb3"
MODEL = "VPOS3356"
ATR = bytes.fromhex("3B 68 00 00 00 73 C8 40 13 00 90 00")
EOT, ACK, CAN = 0x04, 0x06, 0x18
# §9: the READ MAGNETIC STRIPE response for test card 4111 1111 1111 1111, as documented.
SWIPE_RESPONSE = bytes.fromhex(
    "02 C1 07 00 5E 00 33 25 42 34 31 31 31 31 31 31 31 31 31 31 31 31 31 31 31 5E 44 4F 45 2F 4A 4F 48 4E 5E 32"
    " 35 31 32 31 30 31 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 3F 27 3B 34 31 31 31 31 31 31 31 31 31 31 31"
    " 31 31 31 31 3D 32 35 31 32 31 30 31 30 30 30 30 30 30 30 30 30 30 30 30 30 3F 00 E3 78")
PAIRING_MODE_SECONDS = 120

parser = argparse.ArgumentParser()
parser.add_argument("--adapter", default="hci0")
parser.add_argument("--name", default="VPOS3356-0101")
parser.add_argument("--version", default=None)
parser.add_argument("--secure", action="store_true", help="firmware 3.0 link security (§1.1)")
parser.add_argument("--display", action="store_true", help="with --secure: a display, Passkey Entry")
parser.add_argument("--mtu", type=int, default=247)
parser.add_argument("--uart", default=None)
parser.add_argument("--corrupt-at", type=int, default=None)
parser.add_argument("--drop-at", type=int, default=None)
parser.add_argument("--trace", default=None, help="writes every YModem byte each way to this file")
args = parser.parse_args()
args.version = args.version or ("3.0.2" if args.secure else "2.4.1")
if shutil.which("rb") is None:
    sys.exit("lrzsz_reader.py needs lrzsz's rb: apt-get install lrzsz")
APP = "/lrzszreader/" + args.adapter

DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
loop = GLib.MainLoop()


def log(message):
    print(f"[{args.name}] {message}", flush=True)


trace_file = open(args.trace, "w") if args.trace else None


def trace(direction, data):
    if trace_file:
        trace_file.write(f"{time.monotonic():.4f} {direction} {len(data)} {bytes(data).hex()}\n")
        trace_file.flush()


def crc_ccitt(data):
    return binascii.crc_hqx(data, 0xFFFF)


def frame(main, sub, status, data=b""):
    body = bytes([main, sub]) + struct.pack(">H", len(data) + 1) + bytes([status]) + data
    return b"\x02" + body + struct.pack(">H", crc_ccitt(body))


# --- The reader -----------------------------------------------------------------------------

class Reader:
    def __init__(self):
        self.version = args.version
        self.central = None
        self.mtu = 23
        self.frames = b""
        self.powered = False
        self.rb = None            # the rb process during a firmware update
        self.work = None          # rb's folder
        self.expected_size = 0
        self.stream = 0           # YModem bytes received from the host
        self.tail = b""           # the last 133 bytes of the stream, to spot the end of the batch
        self.eot_seen = False     # the host has sent EOT
        self.batch_ended = False  # the host sent the empty block 0: rb's output is held
        self.uart = bytearray()
        self.uart_capacity, self.uart_rate = (int(x) for x in args.uart.split(":")) if args.uart else (0, 0)
        self.uart_dropped = 0
        self.uart_timer = None
        self.corrupted = False
        self.dropped_link = False
        self.advertisements = []

    # Frames ------------------------------------------------------------------------------

    def received(self, data, options):
        if "device" in options:
            self.central = str(options["device"])
        if "mtu" in options:
            self.mtu = min(int(options["mtu"]), args.mtu)
        if self.rb is not None:
            self.ymodem(data)
            return
        self.frames += data
        while True:
            start = self.frames.find(b"\x02")
            if start < 0:
                self.frames = b""
                return
            self.frames = self.frames[start:]
            if len(self.frames) < 5:
                return
            length = struct.unpack(">H", self.frames[3:5])[0]
            if length > 1024:
                self.frames = self.frames[1:]
                continue
            if len(self.frames) < length + 7:
                return
            whole, self.frames = self.frames[:length + 7], self.frames[length + 7:]
            if struct.unpack(">H", whole[-2:])[0] != crc_ccitt(whole[1:-2]):
                log(f"frame with a bad CRC dropped ({len(whole)} bytes)")
                continue
            self.command(whole[1], whole[2], whole[5:-2])
            if self.rb is not None:  # the rest of the write is YModem already
                rest, self.frames = self.frames, b""
                if rest:
                    self.ymodem(rest)
                return

    def command(self, main, sub, data):
        if (main, sub) == (0xC0, 0x01):
            fields = [(1, MODEL.encode()), (2, b"LRZ" + args.adapter.encode()), (3, self.version.encode()),
                      (4, b"\x64"), (5, b"\x13" if args.display else b"\x03"), (6, b"1.0")]
            self.send(frame(main, sub, 0, b"".join(bytes([t, len(v)]) + v for t, v in fields)))
        elif (main, sub) == (0xC0, 0x02):
            self.send(frame(main, sub, 0))
        elif (main, sub) == (0xC0, 0x10):
            size = struct.unpack(">I", data)[0] if len(data) == 4 else 0
            if not 0 < size <= 1 << 20:
                self.send(frame(main, sub, 0x07))
                return
            self.send(frame(main, sub, 0))
            self.start_rb(size)
        elif (main, sub) == (0xC1, 0x07):
            self.send(SWIPE_RESPONSE)
        elif (main, sub) == (0xC2, 0x01):
            self.powered = True
            self.send(frame(main, sub, 0, ATR))
        elif (main, sub) == (0xC2, 0x02):
            if not self.powered:
                self.send(frame(main, sub, 0x0A))
            elif len(data) < 4:
                self.send(frame(main, sub, 0x07))
            else:
                body = data[5:5 + data[4]] if len(data) > 5 else b""
                self.send(frame(main, sub, 0, body + b"\x90\x00"))
        elif (main, sub) == (0xC2, 0x03):
            self.powered = False
            self.send(frame(main, sub, 0))
        elif (main, sub) == (0xC2, 0x04):
            self.send(frame(main, sub, 0, b"\x02" if self.powered else b"\x01"))
        else:
            self.send(frame(main, sub, 0x06))

    def send(self, data):
        # MTU − 5: bluetoothd cuts each value of a Multiple Handle Value Notification (what
        # it sends a BlueZ central) to the MTU − 5 (Docs/bluetooth-notes.md).
        size = max(1, self.mtu - 5)
        for start in range(0, len(data), size):
            tx.notify(data[start:start + size])

    # Firmware update ---------------------------------------------------------------------

    def start_rb(self, size):
        self.work = tempfile.mkdtemp(prefix="lrzsz-reader-")
        self.rb = subprocess.Popen(["rb", "--ymodem", "--binary", "--quiet"], cwd=self.work,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        os.set_blocking(self.rb.stdout.fileno(), False)
        GLib.io_add_watch(self.rb.stdout.fileno(), GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, self.rb_output)
        self.expected_size = size
        self.stream, self.tail, self.eot_seen, self.batch_ended = 0, b"", False, False
        self.uart.clear()
        if self.uart_rate:
            self.uart_last = time.monotonic()
            self.uart_timer = GLib.timeout_add(5, self.drain_uart)
        log(f"firmware update: {size} bytes announced, rb started")

    def ymodem(self, data):
        trace("host", data)
        data = bytearray(data)
        if args.corrupt_at is not None and not self.corrupted and self.stream <= args.corrupt_at < self.stream + len(data):
            data[args.corrupt_at - self.stream] ^= 0xFF
            self.corrupted = True
            log(f"corrupted byte {args.corrupt_at} of the YModem stream")
        self.stream += len(data)
        if bytes(data) == bytes([EOT]):
            self.eot_seen = True
        # The block 0 after EOT with an empty name (SOH 00 FF NUL…) ends the batch.
        self.tail = (self.tail + bytes(data))[-133:]
        if self.eot_seen and len(self.tail) == 133 and self.tail[:4] == bytes([0x01, 0x00, 0xFF, 0x00]):
            self.batch_ended = True
        if args.drop_at is not None and not self.dropped_link and self.stream >= args.drop_at:
            self.dropped_link = True
            log(f"dropping the link at byte {self.stream} of the YModem stream")
            self.stop_rb()
            self.disconnect()
            log(f"link lost during the update; old firmware {self.version} runs")
            return
        if self.uart_rate:
            room = self.uart_capacity - len(self.uart)
            if len(data) > room:
                self.uart_dropped += len(data) - room
            self.uart += data[:max(0, room)]
        else:
            self.to_rb(bytes(data))

    def drain_uart(self):
        if self.rb is None:
            self.uart_timer = None
            return False
        now = time.monotonic()
        count = min(len(self.uart), int((now - self.uart_last) * self.uart_rate))
        if count:
            self.uart_last = now
            chunk = bytes(self.uart[:count])
            del self.uart[:count]
            self.to_rb(chunk)
        elif not self.uart:
            self.uart_last = now
        return True

    def to_rb(self, data):
        trace("rb-in", data)
        try:
            self.rb.stdin.write(data)
            self.rb.stdin.flush()
        except (BrokenPipeError, ValueError, AttributeError):
            pass

    def rb_output(self, fd, condition):
        if self.rb is None:
            return False
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            return True
        if data:
            trace("rb-out", data)
            if not self.batch_ended:
                self.send(data)
            return True
        self.rb_exited()
        return False

    def rb_exited(self):
        status = self.rb.wait()
        files = [os.path.join(self.work, f) for f in os.listdir(self.work)]
        image = open(files[0], "rb").read() if status == 0 and len(files) == 1 else None
        dropped = self.uart_dropped
        self.stop_rb()
        if dropped:
            log(f"uart overflow: {dropped} bytes dropped during the update")
        if not self.batch_ended:
            log(f"firmware update ended without the file (rb exit {status}); old firmware {self.version} runs")
            return
        verdict, version = check_image(image, self.expected_size)
        digest = hashlib.sha256(image).hexdigest() if image is not None else "none"
        log(f"image received: {len(image or b'')} bytes, sha256 {digest}, {verdict}")
        if version is None:
            self.send(bytes([CAN, CAN]))
            log(f"old firmware {self.version} runs")
            return
        # Accepted: from the ACK on, the old firmware is gone. The reader stops advertising at
        # once, so a host that ends the link before the restart does cannot reach it again
        # until it advertises the new version.
        self.send(bytes([ACK]))
        self.unadvertise()
        self.version = version
        GLib.timeout_add(300, self.restart)

    def stop_rb(self):
        if self.uart_timer is not None:
            GLib.source_remove(self.uart_timer)
            self.uart_timer = None
        if self.rb is not None:
            if self.rb.poll() is None:
                self.rb.kill()
                self.rb.wait()
            for stream in (self.rb.stdin, self.rb.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
        self.rb = None
        self.uart.clear()
        self.uart_dropped = 0
        self.frames = b""

    def restart(self):
        log(f"restarting on firmware {self.version}")
        self.disconnect()
        GLib.timeout_add(2000, self.advertise)
        return False

    # The link ----------------------------------------------------------------------------

    def disconnect(self):
        if self.central:
            dbus.Interface(bus.get_object(BLUEZ, self.central), "org.bluez.Device1").Disconnect(
                reply_handler=lambda: None, error_handler=lambda e: log(f"disconnect: {e}"))
        self.central = None
        self.powered = False

    def advertise(self, then=None):
        """Registers both advertisements; once bluetoothd has taken both, says so and calls
        `then` (the reader can be connected to from then on)."""
        waiting = [2]

        def taken():
            waiting[0] -= 1
            if waiting[0] == 0:
                log(f"advertising {args.name}, firmware {self.version}")
                if then is not None:
                    then()

        for i in range(2):
            adv = self.advertisements[i] if len(self.advertisements) > i else Advertisement(bus, f"{APP}/adv{i}", args.name)
            if len(self.advertisements) <= i:
                self.advertisements.append(adv)
            manager = dbus.Interface(bus.get_object(BLUEZ, f"/org/bluez/{args.adapter}"), "org.bluez.LEAdvertisingManager1")
            manager.RegisterAdvertisement(dbus.ObjectPath(adv.path), dbus.Dictionary({}, signature="sv"),
                                          reply_handler=taken,
                                          error_handler=lambda e: log(f"advertisement: {e}"))
        return False

    def unadvertise(self):
        manager = dbus.Interface(bus.get_object(BLUEZ, f"/org/bluez/{args.adapter}"), "org.bluez.LEAdvertisingManager1")
        for adv in self.advertisements:
            manager.UnregisterAdvertisement(dbus.ObjectPath(adv.path), reply_handler=lambda: None,
                                            error_handler=lambda e: None)


def check_image(image, expected_size):
    """§7.3: the verdict and the image's firmware version (None when it is refused)."""
    if image is None:
        return "no file", None
    if len(image) != expected_size:
        return f"refused: {len(image)} bytes, ENTER FIRMWARE UPDATE said {expected_size}", None
    if image[:4] != b"VPFW" or len(image) < 15 or image[4] != 1:
        return "refused: no VPFW header", None
    n = image[5]
    model = image[6:6 + n].decode("ascii", "replace")
    m = image[6 + n]
    version = image[7 + n:7 + n + m].decode("ascii", "replace")
    payload = struct.unpack(">I", image[7 + n + m:11 + n + m])[0]
    if model != MODEL:
        return f"refused: model {model}", None
    if len(image) != 15 + n + m + payload:
        return "refused: length", None
    if struct.unpack(">I", image[-4:])[0] != zlib.crc32(image[:-4]):
        return "refused: CRC-32", None
    return f"valid, version {version}", version


reader = Reader()
path = f"{APP}/service0"
service = Exported(bus, path, "org.bluez.GattService1", {"UUID": SERVICE_UUID, "Primary": True})
tx = Characteristic(bus, path, 0, TX_UUID, ["notify", "encrypt-notify"] if args.secure else ["notify"])
rx = Characteristic(bus, path, 1, RX_UUID,
                    ["encrypt-write", "write-without-response"] if args.secure else ["write", "write-without-response"],
                    on_write=reader.received)
info_path = f"{APP}/service1"
info = Exported(bus, info_path, "org.bluez.GattService1", {"UUID": "0000180a-0000-1000-8000-00805f9b34fb", "Primary": True})
model = Characteristic(bus, info_path, 0, "00002a24-0000-1000-8000-00805f9b34fb", ["read"], read=lambda: MODEL.encode())
revision = Characteristic(bus, info_path, 1, "00002a26-0000-1000-8000-00805f9b34fb", ["read"],
                          read=lambda: reader.version.encode())
app = Application(bus, APP, [service, tx, rx, info, model, revision])


class Agent(dbus.service.Object):
    """The reader's side of pairing (--secure): Just Works for this adapter's devices, while in
    pairing mode, or with --display the passkey shown (logged); every other request is
    rejected."""

    def __init__(self):
        self.path = APP + "/agent"
        super().__init__(bus, self.path)

    def ours(self, device):
        return str(device).startswith(f"/org/bluez/{args.adapter}/") and pairing_mode()

    def refuse(self):
        raise dbus.exceptions.DBusException("not in pairing mode, or not this reader's", name="org.bluez.Error.Rejected")

    @dbus.service.method("org.bluez.Agent1", in_signature="o")
    def RequestAuthorization(self, device):
        if not self.ours(device):
            self.refuse()

    @dbus.service.method("org.bluez.Agent1", in_signature="ou")
    def RequestConfirmation(self, device, passkey):
        if not self.ours(device):
            self.refuse()

    @dbus.service.method("org.bluez.Agent1", in_signature="os")
    def AuthorizeService(self, device, uuid):
        if not self.ours(device):
            self.refuse()

    @dbus.service.method("org.bluez.Agent1", in_signature="o", out_signature="u")
    def RequestPasskey(self, device):
        self.refuse()

    @dbus.service.method("org.bluez.Agent1", in_signature="ouq")
    def DisplayPasskey(self, device, passkey, entered):
        if self.ours(device):
            log(f"displays passkey {int(passkey):06d}")

    @dbus.service.method("org.bluez.Agent1", in_signature="o", out_signature="s")
    def RequestPinCode(self, device):
        self.refuse()

    @dbus.service.method("org.bluez.Agent1")
    def Release(self):
        pass

    @dbus.service.method("org.bluez.Agent1")
    def Cancel(self):
        pass


started = time.monotonic()


def pairing_mode():
    return time.monotonic() - started < PAIRING_MODE_SECONDS


def set_bondable(on):
    dbus.Interface(bus.get_object(BLUEZ, f"/org/bluez/{args.adapter}"), PROPS).Set(
        "org.bluez.Adapter1", "Pairable", dbus.Boolean(on))
    log("pairing mode" if on else "pairing mode over")
    return False


# The GAP Device Name a central reads after connecting is the adapter's alias: the reader's
# own name, as a real reader's is (else BlueZ renames the device "BlueZ 5.66" on the host).
dbus.Interface(bus.get_object(BLUEZ, f"/org/bluez/{args.adapter}"), PROPS).Set(
    "org.bluez.Adapter1", "Alias", dbus.String(args.name))

if args.secure:
    agent = Agent()
    manager = dbus.Interface(bus.get_object(BLUEZ, "/org/bluez"), "org.bluez.AgentManager1")
    manager.RegisterAgent(dbus.ObjectPath(agent.path), "DisplayOnly" if args.display else "NoInputNoOutput")
    manager.RequestDefaultAgent(dbus.ObjectPath(agent.path))
    set_bondable(True)
    GLib.timeout_add_seconds(PAIRING_MODE_SECONDS, lambda: set_bondable(False))


def registered():
    reader.advertise(then=lambda: print(f"serving {args.name} on {args.adapter}", flush=True))


def not_registered(error):
    print(f"RegisterApplication failed: {error}", flush=True)
    loop.quit()


# Asynchronously: bluetoothd reads the application's objects before it answers.
dbus.Interface(bus.get_object(BLUEZ, f"/org/bluez/{args.adapter}"), "org.bluez.GattManager1").RegisterApplication(
    dbus.ObjectPath(APP), dbus.Dictionary({}, signature="sv"), reply_handler=registered, error_handler=not_registered)


def on_properties(iface, changed, invalidated, path=None):
    if iface == "org.bluez.Device1" and changed.get("Connected") is False and path == reader.central:
        log("central disconnected")
        reader.central = None
        if reader.rb is not None:
            reader.stop_rb()
            log(f"link lost during the update; old firmware {reader.version} runs")


bus.add_signal_receiver(on_properties, "PropertiesChanged", PROPS, BLUEZ, path_keyword="path")
for sig in (signal.SIGINT, signal.SIGTERM):
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, sig, lambda: (loop.quit(), False)[1])
loop.run()
reader.stop_rb()
