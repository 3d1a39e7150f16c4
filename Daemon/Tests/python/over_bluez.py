"""The Python client of Scripts/cardreaderd-over-bluez, in the bluez-vm guest: through
cardreaderd over a real bluetoothd, a swipe on each reader (the emulated one, and lrzsz's
rb written apart from the SDK), then a firmware update of each. Prints ✔ or ✘ per step;
exits 1 if any failed."""
import os
import struct
import sys
import zlib

import grpc
from cardreader.v1 import readers_pb2 as pb
from cardreader.v1 import readers_pb2_grpc as rpc

readers = rpc.ReadersStub(grpc.insecure_channel("unix://" + os.environ["CARDREADERD_SOCKET"]))
failed = 0


def check(name, condition, detail=""):
    global failed
    print(("✔ " if condition else "✘ ") + name + ("" if condition else f": {detail}"), flush=True)
    failed += 0 if condition else 1


def wait_ready(reader, bound=120):
    updates = readers.WatchReaders(pb.WatchReadersRequest(readers=[reader]), timeout=bound, wait_for_ready=True)
    try:
        for update in updates:
            if update.HasField("status") and update.status.link == pb.ReaderStatus.LINK_READY:
                return True
    except grpc.RpcError as error:
        print(f"    {reader}: {error.code().name} {error.details()}")
    finally:
        updates.cancel()
    return False


def image(version, payload_size=8 * 1024):
    """A firmware image for the VPOS3356 (reader documentation §7.3), CRC-32 as zlib's."""
    payload = bytes((index * 7) & 0xFF for index in range(payload_size))
    body = b"VPFW" + bytes([1, 8]) + b"VPOS3356" + bytes([len(version)]) + version.encode() + struct.pack(">I", len(payload)) + payload
    return body + struct.pack(">I", zlib.crc32(body))


for lane in ("lane-1", "lane-2"):
    check(f"{lane} ready through the daemon", wait_ready(lane))
    try:
        swipe = readers.Swipe(pb.SwipeRequest(reader=lane, timeout_seconds=15), timeout=60)
        check(f"{lane}: a swipe, masked", swipe.track2.primary_account_number == "411111******1111", swipe)
    except grpc.RpcError as error:
        check(f"{lane}: a swipe, masked", False, f"{error.code().name} {error.details()}")

for lane, version in (("lane-1", "3.2.0"), ("lane-2", "3.1.0")):
    try:
        progress = list(readers.UpdateFirmware(pb.UpdateFirmwareRequest(reader=lane, image=image(version)), timeout=600))
        phases = [item.phase for item in progress]
        last = progress[-1]
        check(f"{lane}: firmware {version} installed, progress streamed ({len(progress)} messages)",
              last.phase == "completed" and last.result.version == version and "transferring" in phases, phases[-3:])
        info = readers.Info(pb.InfoRequest(reader=lane), timeout=60, wait_for_ready=True)
        check(f"{lane}: GET INFO says {version}", info.firmware_version == version, info.firmware_version)
    except grpc.RpcError as error:
        check(f"{lane}: firmware {version} installed", False, f"{error.code().name} {error.details()}")

sys.exit(1 if failed else 0)
