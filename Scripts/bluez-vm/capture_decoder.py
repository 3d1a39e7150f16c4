"""A guest's btsnoop capture decoded by Wireshark's tshark, with the Enhanced ATT channels
(LE credit-based L2CAP, PSM 0x27) decoded as ATT: what the capture checks read."""
import subprocess
import sys


def decode(capture, *options):
    """tshark's output for `tshark -r CAPTURE` with Enhanced ATT decoded and OPTIONS; exits
    naming tshark's error if it cannot read the capture. The recorder is stopped with the
    guest, so the capture's last record may be cut short: tshark then exits 2 after decoding
    every whole record, which are all there is to read."""
    tshark = subprocess.run(["tshark", "-r", capture, "-d", "btl2cap.psm==0x0027,btatt", *options],
                            capture_output=True, text=True)
    if tshark.returncode != 0 and not (tshark.returncode == 2 and "cut short in the middle of a packet" in tshark.stderr):
        sys.exit(f"tshark could not read {capture} (exit {tshark.returncode}): {tshark.stderr.strip()}")
    return tshark.stdout
