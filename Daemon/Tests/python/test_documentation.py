"""The daemon's documentation, run: every Python block of Docs/cardreaderd.md against an
emulated fleet, and the README's command that starts the service, as written."""
import os
import re
import shlex
import signal
import subprocess
import sys

from conftest import DAEMON, STARTUP_BOUND

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def blocks(path, language):
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    return re.findall(r"^```" + language + r"\n(.*?)^```", text, re.M | re.S)


def test_every_python_block_of_the_guide_runs(start_daemon):
    daemon = start_daemon(["--emulated-fleet", "1", "--scenario", "card-inserted"])
    found = blocks("Docs/cardreaderd.md", "python")
    assert found, "no Python block in Docs/cardreaderd.md"
    for block in found:
        result = subprocess.run(
            [sys.executable, "-c", block], capture_output=True, text=True, timeout=120,
            env={**os.environ, "CARDREADERD_SOCKET": daemon.socket, "PYTHONPATH": os.environ["CARDREADER_STUBS"]})
        assert result.returncode == 0, result.stdout + result.stderr
        assert "411111******1111" in result.stdout


def test_the_readmes_command_starts_the_service(tmp_path):
    (line,) = [line for block in blocks("README.md", "sh") for line in block.splitlines() if "cardreaderd --emulated-fleet" in line]
    arguments = shlex.split(line.split("#")[0])
    assert arguments[:4] == ["swift", "run", "--package-path", "Daemon"]
    # The built daemon in place of `swift run` (the same binary), on a socket of the test's.
    arguments = [DAEMON] + arguments[5:]
    arguments[arguments.index("--socket") + 1] = str(tmp_path / "cardreaderd.sock")
    process = subprocess.Popen(arguments, stderr=subprocess.PIPE, text=True)
    seen = []
    try:
        for log in process.stderr:
            seen.append(log)
            if "serving" in log:
                assert "VPOS3356-E001, VPOS3356-E002" in log
                break
        else:
            raise AssertionError(f"the README's cardreaderd never served (exit {process.wait()}): {''.join(seen)}")
        process.send_signal(signal.SIGTERM)
        status = process.wait(timeout=STARTUP_BOUND)
        seen.extend(process.stderr)
        assert status == 0, f"SIGTERM ended it with {status}: {''.join(seen)}"
    finally:
        process.kill()
