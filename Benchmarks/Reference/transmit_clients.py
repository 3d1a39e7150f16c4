"""Round trips of one APDU from Python, through cardreaderd (gRPC, a lease held, the card
powered), through pcscd (pyscard's SCardTransmit to vpcd's virtual card) and through
pcscd to the driver and cardreaderd (pyscard's SCardTransmit to the emulated reader's
card): the median and 90th percentile over COUNT exchanges, in microseconds, after a
warm-up.

Usage: transmit_clients.py daemon SOCKET COUNT | pcscd COUNT | driver COUNT
"""
import statistics
import sys
import time

SELECT = bytes.fromhex("00A404000E325041592E5359532E444446303100")


def report(name, samples):
    samples.sort()
    print(f"{name} {len(samples)} median_us={samples[len(samples) // 2]:.1f} p90_us={samples[len(samples) * 9 // 10]:.1f}")


def measure(call, count):
    for _ in range(100):
        call()
    samples = []
    for _ in range(count):
        started = time.perf_counter_ns()
        call()
        samples.append((time.perf_counter_ns() - started) / 1000)
    return samples


def daemon(socket, count):
    import grpc
    from cardreader.v1 import readers_pb2 as pb, readers_pb2_grpc as rpc
    readers = rpc.ReadersStub(grpc.insecure_channel("unix://" + socket))
    reader = readers.ListReaders(pb.ListReadersRequest(), timeout=30, wait_for_ready=True).readers[0].name
    hold = readers.Hold(pb.HoldRequest(reader=reader), timeout=600)
    lease = next(hold).lease.lease_id
    readers.PowerOn(pb.PowerOnRequest(reader=reader, lease_id=lease), timeout=30)
    request = pb.TransmitRequest(reader=reader, lease_id=lease, apdu=SELECT)
    report("daemon", measure(lambda: readers.Transmit(request, timeout=30), count))
    hold.cancel()


def pcscd(count, name="Virtual PCD", label="pcscd"):
    from smartcard.System import readers
    deadline = time.monotonic() + 30
    while True:
        available = [reader for reader in readers() if name in str(reader)]
        if available:
            try:
                connection = available[0].createConnection()
                connection.connect()
                break
            except Exception:
                pass
        if time.monotonic() > deadline:
            sys.exit("pcscd shows no virtual card")
        time.sleep(0.2)
    apdu = list(SELECT)
    report(label, measure(lambda: connection.transmit(apdu), count))


if __name__ == "__main__":
    if sys.argv[1] == "daemon":
        daemon(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "driver":
        pcscd(int(sys.argv[2]), name="CardReaderKit", label="driver")
    else:
        pcscd(int(sys.argv[2]))
