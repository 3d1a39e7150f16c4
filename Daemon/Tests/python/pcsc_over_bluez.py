"""The PC/SC client of Scripts/cardreaderd-over-bluez, in the bluez-vm guest: Debian's
pcscd with the driver reading READER_CONF_DIR, and Debian's pyscard exchanging APDUs with
lane-1's card through pcscd, the driver, cardreaderd and a real bluetoothd. Prints ✔ or ✘
per step; exits 1 if any failed.

Usage: pcsc_over_bluez.py READER_CONF_DIR
"""
import sys

from pcsc import Context, PCSCDaemon, PCSCError, hexed

failed = 0


def check(name, condition, detail=""):
    global failed
    print(("✔ " if condition else "✘ ") + name + ("" if condition else f": {detail}"), flush=True)
    failed += 0 if condition else 1


pcscd = PCSCDaemon(sys.argv[1])
try:
    pcscd.wait_for_line("cardreaderd-ifd: lane-1: opened", bound=60)
    context = Context()
    (reader,) = context.wait_for_readers(["lane-1"], bound=60)
    check("pcscd lists lane-1", True)
    from pcsc import scard
    state, _ = context.wait_for_state(reader, lambda state, _: state & scard.SCARD_STATE_PRESENT, bound=120)
    check("pcscd sees lane-1's card", True)
    connection = context.connect(reader)
    check("the card's ATR, as the emulated card gives it", connection.atr() == list(bytes.fromhex("3B68000000 73C8401300 9000".replace(" ", ""))),
          hexed(connection.atr()))
    first = connection.transmit([0x00, 0xA4, 0x04, 0x00, 0x0E] + list(b"2PAY.SYS.DDF01") + [0x00])
    check("SELECT PPSE: the card's 61xx, passed through", first[0] == 0x61, hexed(first))
    fci = connection.transmit([0x00, 0xC0, 0x00, 0x00, first[1]])
    check("GET RESPONSE: the PPSE's FCI and 90 00", fci[0] == 0x6F and fci[-2:] == [0x90, 0x00], hexed(fci[-2:]))
    connection.disconnect(scard.SCARD_UNPOWER_CARD)
    context.release()
except (PCSCError, AssertionError) as error:
    check("PC/SC over BlueZ", False, str(error))
finally:
    status = pcscd.stop()
    check("pcscd stops on SIGTERM, exit 0", status == 0, f"exit {status}")
    if failed:
        print(pcscd.log()[-4000:])
sys.exit(1 if failed else 0)
