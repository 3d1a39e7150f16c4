"""The readers' chip slots as PC/SC readers: pcscd (Debian's) with the driver, reaching
cardreaderd's emulated readers, used by programs no one on the project wrote: pyscard
(Debian's), OpenSC's opensc-tool and pcsc-tools' pcsc_scan.

The expected answers are computed here from the card files (Fixtures/cards), by EMV Book
3's rules for the templates and ISO 7816-4's for T=0 (61xx, then GET RESPONSE): not from
the emulator's code.
"""
import getpass
import json
import os
import signal
import subprocess
import threading
import time

import grpc
import pytest

import pcsc
from conftest import DAEMON, EVENT_BOUND, fails, pb, wait_for_status
from pcsc import BOUND, Context, PCSCDaemon, PCSCError, hexed, reader_prefix, scard

DRIVER = os.environ.get("PCSC_DRIVER", "")
CARDS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Fixtures", "cards")

pytestmark = pytest.mark.skipif(
    not DRIVER and not os.environ.get("PCSC_REQUIRED"), reason="PCSC_DRIVER names no driver (Scripts/client-tests builds it)")


# ---- The cards, as their files describe them

def card(name):
    with open(os.path.join(CARDS, f"{name}.json")) as file:
        return json.load(file)


def hex_bytes(text):
    return list(bytes.fromhex(text.replace(" ", "")))


def tlv(tag, value):
    """BER-TLV (EMV Book 3, annex B): tag, length in one, two or three bytes, value."""
    length = len(value)
    if length < 0x80:
        encoded = [length]
    elif length < 0x100:
        encoded = [0x81, length]
    else:
        encoded = [0x82, length >> 8, length & 0xFF]
    return hex_bytes(tag) + encoded + list(value)


def ppse_fci(chip):
    entries = []
    for application in chip["applications"]:
        entry = tlv("4F", hex_bytes(application["aid"])) + tlv("50", application["label"].encode())
        if "priority" in application:
            entry += tlv("87", [application["priority"]])
        entries += tlv("61", entry)
    return tlv("6F", tlv("84", b"2PAY.SYS.DDF01") + tlv("A5", tlv("BF0C", entries)))


def application_fci(application):
    proprietary = tlv("50", application["label"].encode())
    if "priority" in application:
        proprietary += tlv("87", [application["priority"]])
    if "pdol" in application:
        proprietary += tlv("9F38", hex_bytes(application["pdol"]))
    return tlv("6F", tlv("84", hex_bytes(application["aid"])) + tlv("A5", proprietary))


def pdol_length(pdol):
    """The length of the data a PDOL asks for: each entry is a tag (1 or 2 bytes) and a length."""
    data, total, index = hex_bytes(pdol), 0, 0
    while index < len(data):
        index += 2 if data[index] & 0x1F == 0x1F else 1
        total += data[index]
        index += 1
    return total


def file_locator(records):
    """AFL (EMV Book 3, 10.2): per SFI, each run of consecutive records, none for offline authentication."""
    entries = []
    for sfi in sorted({record["sfi"] for record in records}):
        numbers = sorted({record["record"] for record in records if record["sfi"] == sfi})
        first = last = numbers[0]
        for number in numbers[1:] + [None]:
            if number is not None and number == last + 1:
                last = number
                continue
            entries += [sfi << 3, first, last, 0]
            if number is not None:
                first = last = number
    return entries


def record_template(record):
    body = []
    for item in record["objects"]:
        value = item["text"].encode() if "text" in item else hex_bytes(item["value"])
        body += tlv(item["tag"], value)
    return tlv("70", body)


def exchange_t0(connection, command):
    """Sends a case-4 command as a T=0 card wants it: the card's 61xx, then GET RESPONSE."""
    first = connection.transmit(command)
    assert first[0] == 0x61, f"a T=0 card answers a case-4 command with 61xx, not {hexed(first)}"
    second = connection.transmit([0x00, 0xC0, 0x00, 0x00, first[1]])
    assert second[-2:] == [0x90, 0x00], hexed(second)
    return first, second[:-2]


# ---- The set-up: cardreaderd, the install command, pcscd

class Lane:
    """cardreaderd on emulated readers, the driver installed for them, and pcscd."""

    def __init__(self, daemon, root, install_output, readers):
        self.daemon, self.root, self.install_output, self.readers = daemon, root, install_output, readers
        self.pcscd = None

    def start_pcscd(self):
        self.pcscd = PCSCDaemon(os.path.join(self.root, "etc", "reader.conf.d"))
        try:
            for reader in self.readers:
                self.pcscd.wait_for_line(f"cardreaderd-ifd: {reader}: opened")
            context = Context()
            try:
                context.wait_for_readers(self.readers)
            finally:
                context.release()
        except BaseException:
            self.pcscd.stop()
            raise
        return self.pcscd


@pytest.fixture
def lane(start_daemon, tmp_path):
    """Starts a lane: cardreaderd's emulated readers with `cards` and `scenario`, the driver
    installed with `cardreaderd pcsc install --all --allow-payment-cards`, pcscd started."""
    lanes = []

    def start(cards=("visa-test", "mastercard-test"), scenario=("card-inserted",), pcscd=True):
        config = {"emulatedFleet": {"count": len(cards), "cards": list(cards), "scenario": list(scenario)}}
        daemon = start_daemon(arguments=(), config=config)
        root = str(tmp_path / f"root{len(lanes)}")
        install = subprocess.run(
            [DAEMON, "pcsc", "install", "--system-root", root, "--config", daemon.config, "--socket", daemon.socket,
             "--all", "--allow-payment-cards", "--pcscd-user", getpass.getuser(), "--library", DRIVER],
            capture_output=True, text=True, timeout=BOUND)
        assert install.returncode == 0, install.stderr + install.stdout
        daemon.wait_for_line("users and reveal list re-read")
        readers = [f"VPOS3356-E00{index}" for index in range(1, len(cards) + 1)]
        started = Lane(daemon, root, install.stdout, readers)
        lanes.append(started)
        if pcscd:
            started.start_pcscd()
        return started

    yield start
    for started in lanes:
        if started.pcscd:
            started.pcscd.stop()


# ---- The tests

def test_install_writes_one_entry_per_reader_and_says_who_reaches_pcscds_socket(lane):
    started = lane(pcscd=False)
    entries = sorted(os.listdir(os.path.join(started.root, "etc", "reader.conf.d")))
    assert entries == ["cardreaderd-VPOS3356-E001", "cardreaderd-VPOS3356-E002"]
    with open(os.path.join(started.root, "etc", "reader.conf.d", entries[0])) as file:
        text = file.read()
    assert f"DEVICENAME   VPOS3356-E001@unix:{started.daemon.socket}" in text
    assert 'FRIENDLYNAME "CardReaderKit VPOS3356-E001"' in text
    library = os.path.join(started.root, "usr", "lib", "pcsc", "drivers", "serial", "libcardreaderd-ifd.so")
    assert f"LIBPATH      {library}" in text
    assert os.path.getsize(library) == os.path.getsize(DRIVER)
    with open(started.daemon.config) as file:
        assert getpass.getuser() in json.load(file)["reveal"]
    assert "pcscd's socket:" in started.install_output
    assert "raw APDUs" in started.install_output

    removed = subprocess.run([DAEMON, "pcsc", "uninstall", "--system-root", started.root, "--config", started.daemon.config],
                             capture_output=True, text=True, timeout=BOUND)
    assert removed.returncode == 0, removed.stderr
    assert os.listdir(os.path.join(started.root, "etc", "reader.conf.d")) == []
    assert not os.path.exists(library)


def test_without_allow_payment_cards_pcsc_sees_the_cards_and_its_apdus_are_refused(start_daemon, tmp_path):
    daemon = start_daemon(arguments=(), config={"emulatedFleet": {"count": 1, "scenario": ["card-inserted"]}})
    root = str(tmp_path / "root")
    install = subprocess.run(
        [DAEMON, "pcsc", "install", "--system-root", root, "--config", daemon.config, "--socket", daemon.socket,
         "--reader", "VPOS3356-E001", "--pcscd-user", getpass.getuser(), "--library", DRIVER],
        capture_output=True, text=True, timeout=BOUND)
    assert install.returncode == 0, install.stderr
    assert "is not in cardreaderd's reveal list" in install.stdout and "APDUs are refused" in install.stdout
    lane = Lane(daemon, root, install.stdout, ["VPOS3356-E001"])
    pcscd = lane.start_pcscd()
    try:
        context = Context()
        connection = context.connect(context.name("VPOS3356-E001"))
        with pytest.raises(PCSCError) as raised:
            connection.transmit([0x00, 0xA4, 0x04, 0x00, 0x0E] + list(b"2PAY.SYS.DDF01") + [0x00])
        assert raised.value.result == scard.SCARD_E_NOT_TRANSACTED
        pcscd.wait_for_line("reveal-not-allowed")
        context.release()
    finally:
        pcscd.stop()


def test_pyscard_lists_both_readers_and_reads_each_cards_atr(lane):
    lane()
    context = Context()
    try:
        for reader, name in (("VPOS3356-E001", "visa-test"), ("VPOS3356-E002", "mastercard-test")):
            expected = hex_bytes(card(name)["chip"]["atr"])
            state, _ = context.state(context.name(reader))
            assert state & scard.SCARD_STATE_PRESENT, pcsc.describe(state)
            connection = context.connect(context.name(reader))
            assert connection.atr() == expected, f"{reader}: {hexed(connection.atr())}"
            connection.disconnect()
    finally:
        context.release()


@pytest.mark.parametrize("reader,name", [("VPOS3356-E001", "visa-test"), ("VPOS3356-E002", "mastercard-test")])
def test_an_emv_read_is_answered_as_the_card_answers_61xx_passed_through(lane, reader, name):
    lane()
    chip = card(name)["chip"]
    application = chip["applications"][0]
    context = Context()
    try:
        connection = context.connect(context.name(reader))
        first, fci = exchange_t0(connection, [0x00, 0xA4, 0x04, 0x00, 0x0E] + list(b"2PAY.SYS.DDF01") + [0x00])
        assert first == [0x61, len(ppse_fci(chip))]
        assert fci == ppse_fci(chip)

        aid = hex_bytes(application["aid"])
        _, fci = exchange_t0(connection, [0x00, 0xA4, 0x04, 0x00, len(aid)] + aid + [0x00])
        assert fci == application_fci(application)

        length = pdol_length(application.get("pdol", ""))
        command = [0x80, 0xA8, 0x00, 0x00, length + 2, 0x83, length] + [0x00] * length + [0x00]
        _, options = exchange_t0(connection, command)
        records = application["records"]
        assert options == tlv("77", tlv("82", hex_bytes(application["aip"])) + tlv("94", file_locator(records)))

        for record in records:
            # READ RECORD is case 2: T=0 asks for the length first (6Cxx), then the record.
            p2 = (record["sfi"] << 3) | 0x04
            probe = connection.transmit([0x00, 0xB2, record["record"], p2, 0x00])
            template = record_template(record)
            if probe[-2:] != [0x90, 0x00]:
                assert probe == [0x6C, len(template) & 0xFF], hexed(probe)
                probe = connection.transmit([0x00, 0xB2, record["record"], p2, probe[1]])
            assert probe[:-2] == template and probe[-2:] == [0x90, 0x00]
        connection.disconnect(scard.SCARD_UNPOWER_CARD)
    finally:
        context.release()


def test_an_extended_apdu_is_refused_before_it_reaches_the_reader(lane):
    started = lane()
    context = Context()
    try:
        connection = context.connect(context.name("VPOS3356-E001"))
        sent = started.daemon.log().count("APDU")
        with pytest.raises(PCSCError) as raised:
            connection.transmit([0x00, 0xD6, 0x00, 0x00, 0x00, 0x01, 0x00] + [0x55] * 256)
        assert raised.value.result == scard.SCARD_E_NOT_TRANSACTED
        started.pcscd.wait_for_line("refused an extended APDU")
        assert started.daemon.log().count("APDU") == sent, "nothing reached cardreaderd"
    finally:
        context.release()


def test_opensc_tool_lists_the_readers_and_prints_the_atr(lane):
    lane()
    listed = subprocess.run(["opensc-tool", "-l"], capture_output=True, text=True, timeout=BOUND)
    assert listed.returncode == 0, listed.stderr
    assert reader_prefix("VPOS3356-E001") in listed.stdout and reader_prefix("VPOS3356-E002") in listed.stdout
    atr = subprocess.run(["opensc-tool", "-r", "0", "-a"], capture_output=True, text=True, timeout=BOUND)
    assert atr.returncode == 0, atr.stderr
    assert hexed(hex_bytes(card("visa-test")["chip"]["atr"])).replace(" ", ":").lower() in atr.stdout.lower()


def test_pcsc_scan_lists_the_readers_and_their_cards(lane):
    lane()
    readers = subprocess.run(["pcsc_scan", "-r"], capture_output=True, text=True, timeout=BOUND)
    assert reader_prefix("VPOS3356-E001") in readers.stdout, readers.stdout + readers.stderr
    cards = subprocess.run(["pcsc_scan", "-c", "-n"], capture_output=True, text=True, timeout=BOUND)
    assert reader_prefix("VPOS3356-E002") in cards.stdout, cards.stdout + cards.stderr
    assert "Card inserted" in cards.stdout, cards.stdout


def test_both_readers_at_once(lane):
    lane()
    failures = []

    def session(reader):
        context = Context()
        try:
            connection = context.connect(context.name(reader))
            for _ in range(10):
                exchange_t0(connection, [0x00, 0xA4, 0x04, 0x00, 0x0E] + list(b"2PAY.SYS.DDF01") + [0x00])
            connection.disconnect(scard.SCARD_UNPOWER_CARD)
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(f"{reader}: {error}")
        finally:
            context.release()

    threads = [threading.Thread(target=session, args=(reader,)) for reader in ("VPOS3356-E001", "VPOS3356-E002")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=BOUND * 3)
    assert not failures


def test_a_pyscard_session_and_a_grpc_client_take_turns_on_one_reader(lane):
    started = lane()
    stub = started.daemon.stub()
    select = [0x00, 0xA4, 0x04, 0x00, 0x0E] + list(b"2PAY.SYS.DDF01") + [0x00]
    context = Context()
    try:
        connection = context.connect(context.name("VPOS3356-E001"))
        exchange_t0(connection, select)
        # The session holds the reader: a POS process's Hold is refused meanwhile.
        fails(lambda: next(iter(stub.Hold(pb.HoldRequest(reader="VPOS3356-E001"), timeout=5))),
              grpc.StatusCode.FAILED_PRECONDITION, "reader-held")
        connection.disconnect(scard.SCARD_UNPOWER_CARD)
        wait_for_status(stub, "VPOS3356-E001", lambda status: status.held_by == "")

        # The gRPC client's session: PC/SC's APDUs are refused until it ends.
        hold = stub.Hold(pb.HoldRequest(reader="VPOS3356-E001"))
        lease = next(iter(hold)).lease.lease_id
        stub.PowerOn(pb.PowerOnRequest(reader="VPOS3356-E001", lease_id=lease))
        answer = stub.Transmit(pb.TransmitRequest(reader="VPOS3356-E001", lease_id=lease, apdu=bytes(select)))
        assert answer.response[0] == 0x61
        pcsc_connection = context.connect(context.name("VPOS3356-E001"))
        with pytest.raises(PCSCError) as raised:
            pcsc_connection.transmit(select)
        assert raised.value.result == scard.SCARD_E_NOT_TRANSACTED
        hold.cancel()
        wait_for_status(stub, "VPOS3356-E001", lambda status: status.held_by == "")

        # Then PC/SC again.
        pcsc_connection.reconnect(scard.SCARD_RESET_CARD)
        exchange_t0(pcsc_connection, select)
        pcsc_connection.disconnect(scard.SCARD_UNPOWER_CARD)
    finally:
        context.release()


def test_insertion_and_removal_reach_pyscard(lane):
    # The card goes in 10 s after the reader's first connection and out 10 s later: pcscd
    # is up within 2 s, under load.
    started = lane(cards=("visa-test",), scenario=("insert-after=10", "remove-after=20"))
    context = Context()
    reader = context.name("VPOS3356-E001")
    try:
        state, _ = context.state(reader)
        assert state & scard.SCARD_STATE_EMPTY, f"no card yet: {pcsc.describe(state)}"
        state, _ = context.wait_for_state(reader, lambda state, _: state & scard.SCARD_STATE_PRESENT, bound=BOUND + 10)
        connection = context.connect(reader)
        assert connection.atr() == hex_bytes(card("visa-test")["chip"]["atr"])
        exchange_t0(connection, [0x00, 0xA4, 0x04, 0x00, 0x0E] + list(b"2PAY.SYS.DDF01") + [0x00])
        connection.disconnect(scard.SCARD_LEAVE_CARD)
        context.wait_for_state(reader, lambda state, _: state & scard.SCARD_STATE_EMPTY, bound=BOUND + 10)
        started.pcscd.wait_for_line("Card inserted into")
    finally:
        context.release()


def test_a_link_dropped_mid_session_makes_the_reader_unavailable_then_it_comes_back(lane):
    # The reader resets itself 12 s after its first connection: the link drops, and the
    # lane brings it back once the reader has restarted.
    started = lane(cards=("visa-test",), scenario=("card-inserted", "reset-after=12"))
    select = [0x00, 0xA4, 0x04, 0x00, 0x0E] + list(b"2PAY.SYS.DDF01") + [0x00]
    context = Context()
    reader = context.name("VPOS3356-E001")
    try:
        connection = context.connect(reader)
        exchange_t0(connection, select)
        # Follow the reader until its link is lost, then until it is back with its card.
        context.wait_for_state(reader, lambda state, _: not state & scard.SCARD_STATE_PRESENT, bound=BOUND + 12)
        with pytest.raises(PCSCError):
            connection.transmit(select)
        context.wait_for_state(reader, lambda state, _: state & scard.SCARD_STATE_PRESENT, bound=BOUND + 30)
        assert context.readers().count(reader) == 1, "the reader is never removed for a passing loss"
        try:
            connection.reconnect(scard.SCARD_RESET_CARD)
        except PCSCError:
            connection = context.connect(reader)
        exchange_t0(connection, select)
        connection.disconnect(scard.SCARD_UNPOWER_CARD)
        assert any("link is down" in line or "cannot be reached" in line or "session ended" in line
                   for line in started.pcscd.driver_lines()), started.pcscd.log()
    finally:
        context.release()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_pcscd_stopped_exits_cleanly_and_the_driver_logs_no_apdu(lane, sig):
    started = lane()
    context = Context()
    connection = context.connect(context.name("VPOS3356-E001"))
    exchange_t0(connection, [0x00, 0xA4, 0x04, 0x00, 0x0E] + list(b"2PAY.SYS.DDF01") + [0x00])
    context.release()
    # SIGTERM ends pcscd at once (pcsc-lite's "direct suicide": exit() with the driver loaded
    # and its threads running), exit status 0; SIGINT closes every reader, unloads the driver
    # (dlclose), then exits 1, as pcsc-lite 1.9.9 does on Ctrl-C (pcscdaemon.c). A crash
    # would be a negative status.
    status = started.pcscd.stop(sig)
    expected = 0 if sig == signal.SIGTERM else 1
    assert status == expected, f"pcscd exited {status}:\n{started.pcscd.log()}"
    lines = started.pcscd.driver_lines()
    if sig == signal.SIGINT:
        assert any("VPOS3356-E001: closed" in line for line in lines), started.pcscd.log()
        assert "Unloading reader driver" in started.pcscd.log()
    for line in lines:
        assert "2PAY" not in line and "A4 04" not in line.upper() and "A40400" not in line.upper(), line
    # The session's lease ended with pcscd: the reader is free for the POS.
    wait_for_status(started.daemon.stub(), "VPOS3356-E001", lambda status: status.held_by == "")


# ---- The documentation, run

ARTICLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Sources", "CardReaderKit", "CardReaderKit.docc",
                       "ChipSlotForPCSCPrograms.md")


def article_blocks(language):
    """The article's code blocks in `language` ("" for those that name none)."""
    blocks, current, opened = [], None, None
    with open(ARTICLE, encoding="utf-8") as file:
        for line in file:
            if line.startswith("```"):
                if current is None:
                    current, opened = [], line[3:].strip()
                else:
                    if opened == language:
                        blocks.append("".join(current))
                    current = None
            elif current is not None:
                current.append(line)
    return blocks


def test_the_articles_commands_run_as_written(start_daemon, tmp_path):
    daemon = start_daemon(arguments=(), config={"emulatedFleet": {"count": 1, "scenario": ["card-inserted"]}})
    commands = [line.split() for block in article_blocks("sh") for line in block.splitlines() if line.startswith("cardreaderd pcsc")]
    assert len(commands) >= 4, commands
    root = str(tmp_path / "root")
    for command in commands:
        # Into a root of the test's, for its daemon and pcscd's user: the rest as written.
        local = ["--system-root", root, "--config", daemon.config]
        if command[2] == "install":
            local += ["--socket", daemon.socket, "--pcscd-user", getpass.getuser(), "--library", DRIVER]
        result = subprocess.run([DAEMON] + command[1:] + local, capture_output=True, text=True, timeout=BOUND)
        assert result.returncode == 0, f"{' '.join(command)}: {result.stderr}{result.stdout}"


def test_the_articles_entry_is_what_install_writes(tmp_path):
    (entry,) = [block for block in article_blocks("") if "FRIENDLYNAME" in block]
    root = str(tmp_path / "root")
    config = tmp_path / "config.json"
    config.write_text('{"emulatedFleet": {"count": 1}}')
    result = subprocess.run([DAEMON, "pcsc", "install", "--reader", "lane-1", "--system-root", root, "--config", str(config),
                             "--library", DRIVER], capture_output=True, text=True, timeout=BOUND)
    assert result.returncode == 0, result.stderr
    with open(os.path.join(root, "etc", "reader.conf.d", "cardreaderd-lane-1")) as file:
        written = [line for line in file.read().splitlines() if line and not line.startswith("#")]
    assert [line.replace(root + "/", "/") for line in written] == entry.strip().splitlines()


def test_the_articles_socket_override_is_one_systemd_takes(tmp_path):
    (override,) = article_blocks("ini")
    for unit in ("pcscd.socket", "pcscd.service"):
        with open(f"/lib/systemd/system/{unit}") as source, open(tmp_path / unit, "w") as copy:
            copy.write(source.read())
    (tmp_path / "pcscd.socket.d").mkdir()
    (tmp_path / "pcscd.socket.d" / "override.conf").write_text(override)
    result = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "pcscd.socket")], capture_output=True, text=True,
                            env={**os.environ, "SYSTEMD_UNIT_PATH": f"{tmp_path}:"}, timeout=BOUND)
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


def test_the_readmes_try_pcsc_shows_both_readers_and_their_cards():
    script = os.path.join(os.path.dirname(__file__), "..", "..", "Scripts", "try-pcsc")
    result = subprocess.run([script, "--skip-build"], capture_output=True, text=True, timeout=BOUND * 3)
    assert result.returncode == 0, result.stdout + result.stderr
    for reader in ("VPOS3356-E001", "VPOS3356-E002"):
        assert reader_prefix(reader) in result.stdout, result.stdout
    assert result.stdout.count("Card inserted") >= 2, result.stdout
