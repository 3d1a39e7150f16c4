"""cardreaderctl, the service's terminal client: readerctl's output and exit statuses,
through the daemon. Its output is compared with readerctl's own for the same emulated
reader and card (when the clone has built readerctl)."""
import os
import subprocess

import pytest

from conftest import DAEMON, EVENT_BOUND

CARDREADERCTL = os.path.join(os.path.dirname(DAEMON), "cardreaderctl")
READERCTL = os.environ.get("READERCTL")


def ctl(daemon, *arguments):
    return subprocess.run([CARDREADERCTL, *arguments, "--socket", daemon.socket], capture_output=True, text=True, timeout=EVENT_BOUND * 2)


def test_a_swipe_prints_as_readerctl_prints_it(start_daemon):
    daemon = start_daemon(["--emulated-fleet", "1"])
    result = ctl(daemon, "swipe", "--reader", "VPOS3356-E001")
    assert result.returncode == 0, result.stderr
    assert "track2.pan:         411111******1111" in result.stdout
    if READERCTL:
        direct = subprocess.run([READERCTL, "swipe", "--emulated"], capture_output=True, text=True, timeout=EVENT_BOUND)
        assert result.stdout == direct.stdout


@pytest.mark.parametrize("scenario, arguments, status", [
    ("bad-swipe", ["swipe"], 4),
    ("no-swipe", ["swipe", "--timeout", "1"], 3),
    ("no-insert", ["emv", "--wait", "1"], 3),
])
def test_a_failure_ends_with_readerctls_status(start_daemon, scenario, arguments, status):
    daemon = start_daemon(["--emulated-fleet", "1"] + (["--scenario", scenario] if scenario else []))
    result = ctl(daemon, *arguments, "--reader", "VPOS3356-E001")
    assert result.returncode == status, result.stdout + result.stderr
    assert result.stderr.startswith("cardreaderctl: VPOS3356-E001: ")


def test_an_unknown_reader_and_an_absent_service_are_said(start_daemon, tmp_path):
    daemon = start_daemon()
    result = ctl(daemon, "info", "--reader", "lane-9")
    assert result.returncode == 64 and "the daemon holds VPOS3356-E001, VPOS3356-E002" in result.stderr
    absent = subprocess.run([CARDREADERCTL, "info", "--reader", "x", "--socket", str(tmp_path / "none.sock"), "--json"],
                            capture_output=True, text=True, timeout=EVENT_BOUND)
    assert absent.returncode == 6
    assert '"error":"service-unreachable"' in absent.stdout and "is cardreaderd running?" in absent.stderr


def test_apdu_holds_the_reader_for_its_session(start_daemon):
    daemon = start_daemon(["--emulated-fleet", "1", "--scenario", "card-inserted"], config={"reveal": ["root"]})
    result = ctl(daemon, "apdu", "--reader", "VPOS3356-E001", "00A404000E325041592E5359532E444446303100", "00C0000032")
    assert result.returncode == 0, result.stderr
    assert "response.sw:   6132" in result.stdout and "response.sw:   9000" in result.stdout
    # Without the reveal permission (another daemon's configuration): refused, exit 7.
    other = start_daemon(["--emulated-fleet", "1", "--scenario", "card-inserted"])
    refused = ctl(other, "apdu", "--reader", "VPOS3356-E001", "--json", "00A4040000")
    assert refused.returncode == 7 and '"error":"reveal-not-allowed"' in refused.stdout


def test_events_print_the_readers_events(start_daemon):
    daemon = start_daemon(["--emulated-fleet", "1", "--scenario", "insert-after=2"])
    result = ctl(daemon, "events", "--count", "1", "--json")
    assert result.returncode == 0, result.stderr
    assert '"event":"card-inserted"' in result.stdout and '"reader":"VPOS3356-E001"' in result.stdout
