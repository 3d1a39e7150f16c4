"""Fixtures for driving cardreaderd from Python's gRPC, a client written apart from the
daemon: the daemon started on a socket of the test's own (and stopped after), stubs the
test environment generated from the .proto, and helpers that read google.rpc.ErrorInfo.

Environment: CARDREADERD (the daemon's binary), CARDREADER_STUBS (where the generated
modules are). Scripts/client-tests sets both.
"""
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import grpc
import pytest
from grpc_status import rpc_status
from google.rpc import error_details_pb2

sys.path.insert(0, os.environ["CARDREADER_STUBS"])
from cardreader.v1 import readers_pb2 as pb  # noqa: E402
from cardreader.v1 import readers_pb2_grpc as rpc  # noqa: E402

DAEMON = os.environ["CARDREADERD"]

# How long the daemon may take to say it serves, and a client to see a change: measured
# at most 3 s with both cores busy (a debug build); ten times that.
STARTUP_BOUND = 30
EVENT_BOUND = 30


class Daemon:
    """One cardreaderd process, its log lines collected as they come."""

    def __init__(self, arguments, config=None, directory=None):
        # A directory of its own is removed after the test; a shared one, with its owner.
        self.owns_directory = directory is None
        self.directory = directory or tempfile.mkdtemp(prefix="cardreaderd-test-")
        self.socket = os.path.join(self.directory, "cardreaderd.sock")
        command = [DAEMON, "--socket", self.socket, "--log-level", "debug"] + arguments
        if config is not None:
            self.config = os.path.join(self.directory, "config.json")
            with open(self.config, "w") as file:
                json.dump(config, file)
            command += ["--config", self.config]
        self.lines = []
        self._new_lines = queue.Queue()
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.process.stderr:
            self.lines.append(line)
            self._new_lines.put(line)
        self._new_lines.put(None)

    def wait_for_line(self, text, bound=STARTUP_BOUND):
        """Waits until the daemon logs a line containing `text`; returns it."""
        deadline = time.monotonic() + bound
        for line in list(self.lines):
            if text in line:
                return line
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"cardreaderd did not log {text!r} within {bound} s:\n{''.join(self.lines)}")
            try:
                line = self._new_lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"cardreaderd exited ({self.process.wait()}) before logging {text!r}:\n{''.join(self.lines)}")
            if text in line:
                return line

    def wait_serving(self):
        self.wait_for_line("serving")
        return self

    def channel(self):
        return grpc.insecure_channel("unix://" + self.socket)

    def stub(self):
        return rpc.ReadersStub(self.channel())

    def stop(self, sig=signal.SIGTERM):
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=STARTUP_BOUND)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=5)
        return self.process.returncode

    def log(self):
        return "".join(self.lines)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps each phase's report on the test, for fixtures to see whether it failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture
def start_daemon(request):
    """Starts daemons (arguments, optional configuration); stops every one after the test,
    printing their logs when it failed, and removes their directories."""
    started = []

    def start(arguments=("--emulated-fleet", "2"), config=None, directory=None, wait=True):
        daemon = Daemon(list(arguments), config=config, directory=directory)
        started.append(daemon)
        return daemon.wait_serving() if wait else daemon

    yield start
    for daemon in started:
        daemon.stop(signal.SIGKILL)
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        for daemon in started:
            print(f"--- cardreaderd in {daemon.directory}:\n{daemon.log()}")
    for daemon in started:
        if daemon.owns_directory:
            shutil.rmtree(daemon.directory, ignore_errors=True)


def error_info(error):
    """The google.rpc.ErrorInfo a failed call carries (domain cardreader.v1)."""
    status = rpc_status.from_call(error)
    assert status is not None, f"no google.rpc.Status in {error}"
    infos = []
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            infos.append(info)
    assert len(infos) == 1, f"expected one ErrorInfo, got {status.details}"
    assert infos[0].domain == "cardreader.v1"
    return infos[0]


def fails(call, code, reason):
    """Runs `call`, which must fail with `code` and ErrorInfo `reason`; returns the error."""
    with pytest.raises(grpc.RpcError) as raised:
        call()
    error = raised.value
    assert error.code() == code, f"{error.code()}: {error.details()}"
    info = error_info(error)
    assert info.reason == reason, f"{info.reason}: {error.details()}"
    return error, info


def wait_for_status(stub, reader, condition, bound=EVENT_BOUND):
    """Follows WatchReaders until `reader`'s status satisfies `condition`; returns it."""
    updates = stub.WatchReaders(pb.WatchReadersRequest(readers=[reader]), timeout=bound)
    try:
        for update in updates:
            if update.HasField("status") and condition(update.status):
                return update.status
    finally:
        updates.cancel()
    raise AssertionError(f"{reader}: no status as expected within {bound} s")
