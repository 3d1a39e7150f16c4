#!/usr/bin/env python3
"""Records every HCI packet of every controller into a btsnoop file, as `btmon -w` does,
without decoding them: the kernel's HCI monitor channel, written record by record.

btmon decodes each packet as it records it, and BlueZ 5.66's btmon now and then crashes in
that decoder mid-run, which ends its capture early; nobody reads its decoding here
(`btmon -r FILE` decodes the file afterwards). Each record is written whole with one
write(), so a guest that stops mid-run leaves at most its last record cut short.

Usage: hci_recorder.py FILE READY-FILE
  Creates READY-FILE once the monitor socket is bound (packets from then on are recorded;
  the kernel first replays every controller it has); stops on SIGTERM or SIGINT.
"""
import ctypes
import os
import signal
import socket
import struct
import sys
import time

AF_BLUETOOTH = 31
BTPROTO_HCI = 1
HCI_DEV_NONE = 0xFFFF
HCI_CHANNEL_MONITOR = 2
# btsnoop: version 1, datalink 2001 (Linux monitor: flags carry index << 16 | opcode);
# timestamps in microseconds since 0000-01-01, this many before the Unix epoch.
BTSNOOP_HEADER = b"btsnoop\0" + struct.pack(">II", 1, 2001)
EPOCH_OFFSET_US = 0x00DCDDB30F2F8000


def monitor_socket():
    """A raw HCI socket bound to the monitor channel (Python's bind() takes no channel)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.socket(AF_BLUETOOTH, socket.SOCK_RAW | socket.SOCK_CLOEXEC, BTPROTO_HCI)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "socket(AF_BLUETOOTH, BTPROTO_HCI)")
    address = struct.pack("<HHH", AF_BLUETOOTH, HCI_DEV_NONE, HCI_CHANNEL_MONITOR)
    if libc.bind(fd, address, len(address)) != 0:
        error = ctypes.get_errno()
        os.close(fd)
        raise OSError(error, "bind(HCI_CHANNEL_MONITOR)")
    return fd


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[-1])
    path, ready = sys.argv[1], sys.argv[2]

    def stop(*_):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    fd = monitor_socket()
    out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(out, BTSNOOP_HEADER)
    open(ready, "w").close()
    while True:
        packet = os.read(fd, 65536)
        if len(packet) < 6:
            continue
        opcode, index, length = struct.unpack("<HHH", packet[:6])
        data = packet[6:6 + length]
        stamp = time.time_ns() // 1000 + EPOCH_OFFSET_US
        record = struct.pack(">IIIIQ", len(data), len(data), (index << 16) | opcode, 0, stamp) + data
        os.write(out, record)


if __name__ == "__main__":
    main()
