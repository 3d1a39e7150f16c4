"""pcscd with the driver, for tests: a pcscd of the test's own, socket-activated as systemd
starts Debian's (the socket handed over as file descriptor 3), reading the reader.conf.d
that `cardreaderd pcsc install --system-root` wrote, its log collected; and pyscard's
low-level API (Debian's python3-pyscard) as a PC/SC program uses it.

Every pcscd of a test run listens on one path, PCSCLITE_CSOCK_NAME, which libpcsclite
reads once per process: set here, before pyscard is first imported.
"""
import os
import queue
import signal
import socket
import subprocess
import tempfile
import threading
import time

SOCKET = os.path.join(tempfile.mkdtemp(prefix="cardreaderd-pcscd-"), "pcscd.comm")
os.environ["PCSCLITE_CSOCK_NAME"] = SOCKET

from smartcard import scard  # noqa: E402

PCSCD = "/usr/sbin/pcscd"
# How long pcscd may take to open the readers, and a change to reach a program: measured
# under 2 s with both cores busy; ten times that.
BOUND = 20


class PCSCDaemon:
    """One pcscd, reading the entries in `conf_dir`."""

    def __init__(self, conf_dir):
        if os.path.exists(SOCKET):
            os.unlink(SOCKET)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(SOCKET)
        os.chmod(SOCKET, 0o666)
        listener.listen(16)
        self.lines = []
        self._new = queue.Queue()
        # sd_listen_fds(3): the socket as descriptor 3, LISTEN_PID the pid that execs pcscd.
        script = 'exec 3<&0 0</dev/null; LISTEN_PID=$$ LISTEN_FDS=1 exec "$@"'
        self.process = subprocess.Popen(
            ["sh", "-c", script, "sh", PCSCD, "--foreground", "--debug", "--config", conf_dir],
            stdin=listener.fileno(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        listener.close()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line)
            self._new.put(line)
        self._new.put(None)

    def wait_for_line(self, text, bound=BOUND):
        deadline = time.monotonic() + bound
        if any(text in line for line in list(self.lines)):
            return
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"pcscd did not log {text!r} within {bound} s:\n{self.log()}")
            try:
                line = self._new.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"pcscd exited ({self.process.wait()}) before logging {text!r}:\n{self.log()}")
            if text in line:
                return

    def driver_lines(self):
        """The driver's lines so far (after stop(): all of them)."""
        return [line for line in self.lines if "cardreaderd-ifd:" in line]

    def stop(self, sig=signal.SIGTERM):
        """SIGTERM (as systemd stops it) or `sig`; its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=BOUND)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=BOUND)
        return self.process.returncode

    def log(self):
        return "".join(self.lines)


def reader_prefix(reader):
    """What PC/SC programs see for cardreaderd's `reader`, before pcscd's two numbers (the
    first counts the readers opened before it with the same driver)."""
    return f"CardReaderKit {reader} "


class Context:
    """An SCard context: what a PC/SC program holds."""

    def __init__(self):
        result, self.handle = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
        check(result, "SCardEstablishContext")

    def readers(self):
        result, readers = scard.SCardListReaders(self.handle, [])
        if result == scard.SCARD_E_NO_READERS_AVAILABLE:
            return []
        check(result, "SCardListReaders")
        return readers

    def name(self, reader):
        """pcscd's name for cardreaderd's `reader`; None while it lists none."""
        found = [name for name in self.readers() if name.startswith(reader_prefix(reader))]
        return found[0] if found else None

    def wait_for_readers(self, readers, bound=BOUND):
        """Waits until pcscd lists cardreaderd's `readers`; returns their pcscd names."""
        deadline = time.monotonic() + bound
        while any(self.name(reader) is None for reader in readers):
            if time.monotonic() > deadline:
                raise AssertionError(f"pcscd lists {self.readers()}, not {readers}")
            time.sleep(0.1)
        return [self.name(reader) for reader in readers]

    def state(self, reader, known=scard.SCARD_STATE_UNAWARE, timeout_ms=0):
        """(event state, ATR) once it differs from `known`, or after `timeout_ms`."""
        result, states = scard.SCardGetStatusChange(self.handle, timeout_ms, [(reader, known)])
        if result == scard.SCARD_E_TIMEOUT:
            return known, []
        check(result, "SCardGetStatusChange")
        _, event, atr = states[0]
        return event & ~scard.SCARD_STATE_CHANGED, list(atr)

    def wait_for_state(self, reader, condition, bound=BOUND):
        """Follows `reader`'s state until `condition(state, atr)`; returns (state, atr)."""
        deadline = time.monotonic() + bound
        state, atr = self.state(reader)
        while not condition(state, atr):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{reader}: state {describe(state)}, ATR {hexed(atr)}")
            state, atr = self.state(reader, known=state, timeout_ms=int(min(left, 1) * 1000))
        return state, atr

    def connect(self, reader):
        result, card, protocol = scard.SCardConnect(
            self.handle, reader, scard.SCARD_SHARE_SHARED, scard.SCARD_PROTOCOL_T0 | scard.SCARD_PROTOCOL_T1)
        check(result, f"SCardConnect({reader})")
        return Card(card, protocol)

    def release(self):
        scard.SCardReleaseContext(self.handle)


class Card:
    def __init__(self, handle, protocol):
        self.handle, self.protocol = handle, protocol

    def transmit(self, apdu):
        """The response APDU, or raises PCSCError."""
        result, response = scard.SCardTransmit(self.handle, self.protocol, list(apdu))
        check(result, "SCardTransmit")
        return response

    def atr(self):
        result, _, _, _, atr = scard.SCardStatus(self.handle)
        check(result, "SCardStatus")
        return list(atr)

    def reconnect(self, initialization=scard.SCARD_RESET_CARD):
        result, self.protocol = scard.SCardReconnect(
            self.handle, scard.SCARD_SHARE_SHARED, scard.SCARD_PROTOCOL_T0 | scard.SCARD_PROTOCOL_T1, initialization)
        check(result, "SCardReconnect")

    def disconnect(self, disposition=scard.SCARD_LEAVE_CARD):
        check(scard.SCardDisconnect(self.handle, disposition), "SCardDisconnect")


class PCSCError(Exception):
    def __init__(self, result, what):
        super().__init__(f"{what}: {scard.SCardGetErrorMessage(result)} (0x{result & 0xFFFFFFFF:08X})")
        self.result = result


def check(result, what):
    if result != scard.SCARD_S_SUCCESS:
        raise PCSCError(result, what)


def hexed(data):
    return " ".join(f"{byte:02X}" for byte in data)


def describe(state):
    names = [name[len("SCARD_STATE_"):] for name in dir(scard)
             if name.startswith("SCARD_STATE_") and getattr(scard, name) and state & getattr(scard, name) == getattr(scard, name)]
    return "|".join(names) or "UNAWARE"
