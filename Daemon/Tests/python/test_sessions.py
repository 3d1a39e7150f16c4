"""Who owns a reader: a chip session belongs to the lease Hold returns, other clients are
refused `reader-held` meanwhile, and a lease ends with its stream, or with its client's
death (the card powered off, the reader free)."""
import os
import signal
import subprocess
import sys
import textwrap

import grpc

from conftest import EVENT_BOUND, fails, pb, wait_for_status

READER = "VPOS3356-E001"


def test_two_clients_contend_for_one_reader(start_daemon):
    daemon = start_daemon(["--emulated-fleet", "1", "--scenario", "card-inserted"], config={"reveal": ["root"]})
    first, second = daemon.stub(), daemon.stub()
    hold = first.Hold(pb.HoldRequest(reader=READER), timeout=EVENT_BOUND, wait_for_ready=True)
    lease = next(hold).lease.lease_id
    _, info = fails(lambda: next(second.Hold(pb.HoldRequest(reader=READER), timeout=EVENT_BOUND)),
                    grpc.StatusCode.FAILED_PRECONDITION, "reader-held")
    assert info.metadata["held_by"] == "root"
    fails(lambda: second.PowerOn(pb.PowerOnRequest(reader=READER), timeout=EVENT_BOUND),
          grpc.StatusCode.FAILED_PRECONDITION, "reader-held")
    fails(lambda: second.Swipe(pb.SwipeRequest(reader=READER), timeout=EVENT_BOUND),
          grpc.StatusCode.FAILED_PRECONDITION, "reader-held")
    fails(lambda: second.PowerOn(pb.PowerOnRequest(reader=READER, lease_id="0" * 32), timeout=EVENT_BOUND),
          grpc.StatusCode.FAILED_PRECONDITION, "reader-held")
    # Info changes nothing on the reader: allowed while it is held.
    assert second.Info(pb.InfoRequest(reader=READER), timeout=EVENT_BOUND).model == "VPOS3356"
    # The holder's swipe, under its lease.
    first.PowerOn(pb.PowerOnRequest(reader=READER, lease_id=lease), timeout=EVENT_BOUND)
    hold.cancel()
    wait_for_status(second, READER, lambda status: status.held_by == "")
    next(second.Hold(pb.HoldRequest(reader=READER), timeout=EVENT_BOUND))


def test_chip_commands_need_the_lease(start_daemon):
    stub = start_daemon(config={"reveal": ["root"]}).stub()
    fails(lambda: stub.PowerOn(pb.PowerOnRequest(reader=READER), timeout=EVENT_BOUND, wait_for_ready=True),
          grpc.StatusCode.FAILED_PRECONDITION, "lease-required")
    fails(lambda: stub.Transmit(pb.TransmitRequest(reader=READER, apdu=bytes.fromhex("00A4040000")), timeout=EVENT_BOUND),
          grpc.StatusCode.FAILED_PRECONDITION, "lease-required")


CLIENT = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, os.environ["CARDREADER_STUBS"])
    import grpc
    from cardreader.v1 import readers_pb2 as pb, readers_pb2_grpc as rpc
    stub = rpc.ReadersStub(grpc.insecure_channel("unix://" + sys.argv[1]))
    hold = stub.Hold(pb.HoldRequest(reader=sys.argv[2]), wait_for_ready=True)
    lease = next(hold).lease.lease_id
    stub.PowerOn(pb.PowerOnRequest(reader=sys.argv[2], lease_id=lease))
    print("powered", flush=True)
    time.sleep(3600)
""")


def test_a_client_killed_mid_lease_frees_the_reader_and_its_card(start_daemon):
    daemon = start_daemon(["--emulated-fleet", "1", "--scenario", "card-inserted"], config={"reveal": ["root"]})
    client = subprocess.Popen([sys.executable, "-c", CLIENT, daemon.socket, READER], stdout=subprocess.PIPE, text=True)
    try:
        assert client.stdout.readline().strip() == "powered"
        stub = daemon.stub()
        assert stub.ListReaders(pb.ListReadersRequest(), timeout=EVENT_BOUND).readers[0].status.held_by == "root"
        client.send_signal(signal.SIGKILL)
        client.wait()
        wait_for_status(stub, READER, lambda status: status.held_by == "")
        daemon.wait_for_line("lease ended")
        # The lease's end powered the card off: without a power-on of its own, an APDU
        # finds it unpowered.
        hold = stub.Hold(pb.HoldRequest(reader=READER), timeout=EVENT_BOUND)
        lease = next(hold).lease.lease_id
        fails(lambda: stub.Transmit(pb.TransmitRequest(reader=READER, lease_id=lease, apdu=bytes.fromhex("00A4040000")), timeout=EVENT_BOUND),
              grpc.StatusCode.FAILED_PRECONDITION, "card-not-powered")
        hold.cancel()
    finally:
        client.kill()
