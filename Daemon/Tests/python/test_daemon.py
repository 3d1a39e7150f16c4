"""The daemon's own life: one instance per socket, a restart that clients ride through,
SIGTERM cancelling calls under way and telling their clients, and cancellation reaching
the reader (CANCEL; CAN CAN in a firmware transfer)."""
import os
import signal
import threading
import time

import grpc

from conftest import EVENT_BOUND, fails, pb, wait_for_status

READER = "VPOS3356-E001"
FIRMWARE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Fixtures", "firmware")


def test_a_second_daemon_on_the_socket_is_refused(start_daemon):
    first = start_daemon()
    second = start_daemon(directory=first.directory, wait=False)
    assert second.process.wait(timeout=EVENT_BOUND) == 3
    assert f"another cardreaderd serves {first.socket} (pid {first.process.pid})" in second.log()
    # The first one's socket is untouched and served.
    assert first.stub().Info(pb.InfoRequest(reader=READER), timeout=EVENT_BOUND, wait_for_ready=True).model == "VPOS3356"


def test_clients_ride_through_the_daemon_killed_and_restarted(start_daemon):
    first = start_daemon()
    channel = first.channel()
    from conftest import rpc
    stub = rpc.ReadersStub(channel)
    assert stub.Info(pb.InfoRequest(reader=READER), timeout=EVENT_BOUND, wait_for_ready=True).model == "VPOS3356"
    first.stop(signal.SIGKILL)
    # The dead daemon's socket and lock file are left behind; the next daemon takes over.
    assert os.path.exists(first.socket)
    start_daemon(directory=first.directory)
    # The same channel reconnects by itself (wait_for_ready rides the gap).
    assert stub.Info(pb.InfoRequest(reader=READER), timeout=EVENT_BOUND, wait_for_ready=True).serial_number == "EMU00001"


def test_sigterm_cancels_a_swipe_under_way_and_tells_its_client(start_daemon):
    daemon = start_daemon(["--emulated-fleet", "1", "--scenario", "no-swipe"])
    stub = daemon.stub()
    swipe = stub.Swipe.future(pb.SwipeRequest(reader=READER, timeout_seconds=60), timeout=EVENT_BOUND * 2, wait_for_ready=True)
    wait_for_status(daemon.stub(), READER, lambda status: status.link == pb.ReaderStatus.LINK_BUSY)
    assert daemon.stop(signal.SIGTERM) == 0
    fails(swipe.result, grpc.StatusCode.UNAVAILABLE, "daemon-stopping")
    assert "stopped" in daemon.log()


def test_a_cancelled_swipe_is_cancel_at_the_reader(start_daemon):
    daemon = start_daemon(["--emulated-fleet", "1", "--scenario", "no-swipe"])
    stub = daemon.stub()
    swipe = stub.Swipe.future(pb.SwipeRequest(reader=READER, timeout_seconds=60), timeout=EVENT_BOUND * 2, wait_for_ready=True)
    wait_for_status(stub, READER, lambda status: status.busy_command == "READ MAGNETIC STRIPE")
    swipe.cancel()
    # The reader is free again at once (its CANCEL answered), long before the swipe's 60 s.
    wait_for_status(stub, READER, lambda status: status.link == pb.ReaderStatus.LINK_READY and status.held_by == "")
    started = time.monotonic()
    assert stub.Info(pb.InfoRequest(reader=READER), timeout=EVENT_BOUND).model == "VPOS3356"
    assert time.monotonic() - started < EVENT_BOUND


def test_a_swipe_asked_for_as_the_daemon_starts_waits_for_the_reader(start_daemon):
    # The reader takes its connection 2 s after the daemon serves: a swipe asked for at
    # once waits for the link within its own deadline, where it used to fail not-connected.
    daemon = start_daemon(["--emulated-fleet", "1", "--scenario", "no-swipe,slow-connect=2"])
    stub = daemon.stub()
    swipe = stub.Swipe.future(pb.SwipeRequest(reader=READER, timeout_seconds=60), timeout=EVENT_BOUND * 2)
    wait_for_status(stub, READER, lambda status: status.busy_command == "READ MAGNETIC STRIPE")
    assert not swipe.done()
    swipe.cancel()


def test_a_deadline_bounds_the_swipe(start_daemon):
    stub = start_daemon(["--emulated-fleet", "1", "--scenario", "no-swipe"]).stub()
    stub.Info(pb.InfoRequest(reader=READER), timeout=EVENT_BOUND, wait_for_ready=True)
    with_deadline = lambda: stub.Swipe(pb.SwipeRequest(reader=READER, timeout_seconds=60), timeout=1)  # noqa: E731
    try:
        with_deadline()
        raise AssertionError("the swipe returned")
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert stub.Info(pb.InfoRequest(reader=READER), timeout=EVENT_BOUND).model == "VPOS3356"


def test_a_cancelled_update_keeps_the_old_firmware(start_daemon):
    # Each block acknowledged 2 s late: the transfer is under way long enough to cancel.
    daemon = start_daemon(["--emulated-fleet", "1", "--scenario", "firmware-slow-ack=2000"])
    stub = daemon.stub()
    image = open(os.path.join(FIRMWARE, "vpos3356-3.2.0.vfw"), "rb").read()
    update = stub.UpdateFirmware(pb.UpdateFirmwareRequest(reader=READER, image=image), timeout=120, wait_for_ready=True)
    for progress in update:
        if progress.phase == "transferring" and progress.bytes_sent > 0:
            break
    update.cancel()
    wait_for_status(stub, READER, lambda status: status.link == pb.ReaderStatus.LINK_READY)
    assert stub.Info(pb.InfoRequest(reader=READER), timeout=EVENT_BOUND).firmware_version == "3.1.0"


def test_a_slow_subscriber_never_holds_the_reader_up(start_daemon):
    daemon = start_daemon(["--emulated-fleet", "1"], config={"subscriberBuffer": 4})
    stub = daemon.stub()
    stub.Info(pb.InfoRequest(reader=READER), timeout=EVENT_BOUND, wait_for_ready=True)
    # A subscriber that reads its first update, then nothing while the reader works; its
    # channel takes 1 KiB ahead on a stream (no bandwidth probing to grow that).
    from conftest import rpc
    slow = grpc.insecure_channel(
        "unix://" + daemon.socket, options=[("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)])
    updates = rpc.ReadersStub(slow).WatchReaders(pb.WatchReadersRequest(), timeout=120)
    next(updates)
    # Each Info is two status changes (busy, ready): hundreds outrun the stream's window
    # and the subscriber's 4-update buffer. The Infos go at the reader's pace regardless.
    started = time.monotonic()
    for _ in range(300):
        stub.Info(pb.InfoRequest(reader=READER), timeout=EVENT_BOUND)
    busy = time.monotonic() - started
    dropped = 0
    for update in updates:
        dropped += update.dropped
        if dropped:
            break
    updates.cancel()
    assert dropped > 0
    print(f"300 Infos took {busy:.2f} s beside a stalled subscriber; {dropped} updates dropped for it")


def test_readerctl_refuses_a_reader_the_daemon_holds(start_daemon):
    readerctl = os.environ.get("READERCTL")
    if not readerctl:
        import pytest
        pytest.skip("READERCTL names no readerctl")
    import subprocess
    # A Bluetooth reader the daemon holds (there is no bluetoothd here: it keeps trying).
    daemon = start_daemon([], config={"readers": [{"name": "lane-1", "reader": "VPOS3356-1A2B", "adapter": "hci1"}]})
    # Until it connects, a command says why the daemon cannot reach the reader.
    daemon.wait_for_line("reader not connected yet")
    error, info = fails(lambda: daemon.stub().Info(pb.InfoRequest(reader="lane-1"), timeout=EVENT_BOUND),
                        grpc.StatusCode.UNAVAILABLE, "connection-failed")
    assert info.metadata["link"] and info.metadata["fix"], dict(info.metadata)
    held = open(os.path.join(daemon.directory, "held-readers")).read()
    assert "lane-1\tVPOS3356-1A2B\thci1" in held
    environment = {**os.environ, "CARDREADERD_RUNTIME_DIRECTORY": daemon.directory}
    result = subprocess.run([readerctl, "swipe", "--reader", "VPOS3356-1A2B"], capture_output=True, text=True,
                            timeout=EVENT_BOUND, env=environment)
    assert result.returncode == 7, result.stderr
    assert "held by cardreaderd, as lane-1" in result.stderr and "cardreaderctl --reader lane-1" in result.stderr
    # Once the daemon stopped, the list is gone and the reader is readerctl's again.
    daemon.stop()
    assert not os.path.exists(os.path.join(daemon.directory, "held-readers"))


def test_metrics_for_prometheus_on_the_opt_in_endpoint(start_daemon):
    import socket as sockets
    import urllib.request
    with sockets.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    daemon = start_daemon(["--emulated-fleet", "1"], config={"metrics": f"127.0.0.1:{port}"})
    daemon.stub().Info(pb.InfoRequest(reader=READER), timeout=EVENT_BOUND, wait_for_ready=True)
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=EVENT_BOUND).read().decode()
    assert 'cardreader_commands_total{reader="VPOS3356-E001",command="get-info",outcome="success"}' in text, text
    assert 'cardreader_battery_percent{reader="VPOS3356-E001"} 85' in text, text
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/other", timeout=EVENT_BOUND)
        raise AssertionError("served /other")
    except urllib.error.HTTPError as error:
        assert error.code == 404
