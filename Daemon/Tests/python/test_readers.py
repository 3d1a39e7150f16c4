"""Every RPC of cardreader.v1.Readers against cardreaderd's emulated fleet, from Python's
gRPC: answers as the reader documentation and the emulated cards say (test Visa
4111 1111 1111 1111, expiry 2512, service code 201: Fixtures/cards/README.md)."""
import os

import grpc

from conftest import EVENT_BOUND, fails, pb, wait_for_status

FIRMWARE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Fixtures", "firmware")


def test_list_readers_names_the_fleet_ready(start_daemon):
    stub = start_daemon(["--emulated-fleet", "2"]).stub()
    # Connecting takes the readers a moment after the daemon serves.
    for name in ("VPOS3356-E001", "VPOS3356-E002"):
        wait_for_status(stub, name, lambda status: status.link == pb.ReaderStatus.LINK_READY)
    readers = stub.ListReaders(pb.ListReadersRequest(), timeout=EVENT_BOUND).readers
    assert [reader.name for reader in readers] == ["VPOS3356-E001", "VPOS3356-E002"]
    assert all(reader.status.link == pb.ReaderStatus.LINK_READY for reader in readers)
    assert all(reader.description == "emulated" for reader in readers)
    assert readers[0].status.battery.percent == 85
    assert readers[0].status.battery.source in ("get-info", "battery-service")


def test_info_is_get_info(start_daemon):
    stub = start_daemon().stub()
    info = stub.Info(pb.InfoRequest(reader="VPOS3356-E002"), timeout=EVENT_BOUND, wait_for_ready=True)
    assert (info.model, info.serial_number, info.firmware_version) == ("VPOS3356", "EMU00002", "3.1.0")
    assert info.battery_percent == 85
    assert list(info.capabilities) == ["magnetic-stripe", "contact-chip"]


def test_swipe_is_masked_by_default(start_daemon):
    stub = start_daemon().stub()
    swipe = stub.Swipe(pb.SwipeRequest(reader="VPOS3356-E001", timeout_seconds=5), timeout=EVENT_BOUND, wait_for_ready=True)
    for track in (swipe.track1, swipe.track2):
        assert track.primary_account_number == "411111******1111"
        assert (track.expiry, track.service_code, track.passes_luhn) == ("2512", "201", True)
    assert swipe.track1.cardholder_name == ""
    assert not swipe.revealed


def test_a_bad_swipe_is_its_reason(start_daemon):
    stub = start_daemon(["--emulated-fleet", "1", "--scenario", "bad-swipe"]).stub()
    _, info = fails(
        lambda: stub.Swipe(pb.SwipeRequest(reader="VPOS3356-E001"), timeout=EVENT_BOUND, wait_for_ready=True),
        grpc.StatusCode.ABORTED, "bad-swipe")
    assert info.metadata["reader"] == "VPOS3356-E001"
    assert info.metadata["reader_status"] == "0x03"
    assert info.metadata["fix"]


def test_a_chip_session_under_a_lease(start_daemon):
    daemon = start_daemon(["--emulated-fleet", "1", "--scenario", "card-inserted"], config={"reveal": ["root"]})
    stub = daemon.stub()
    hold = stub.Hold(pb.HoldRequest(reader="VPOS3356-E001"), timeout=EVENT_BOUND, wait_for_ready=True)
    lease = next(hold).lease
    assert lease.reader == "VPOS3356-E001" and len(lease.lease_id) == 32
    atr = stub.PowerOn(pb.PowerOnRequest(reader="VPOS3356-E001", lease_id=lease.lease_id), timeout=EVENT_BOUND).atr
    assert atr[0] in (0x3B, 0x3F)
    # SELECT 2PAY.SYS.DDF01 (EMV Book 1 §12.2.2): the card answers 61xx, which goes back as
    # it is (the caller's kernel sends GET RESPONSE).
    select = bytes.fromhex("00A404000E325041592E5359532E444446303100")
    answer = stub.Transmit(pb.TransmitRequest(reader="VPOS3356-E001", lease_id=lease.lease_id, apdu=select), timeout=EVENT_BOUND)
    assert answer.response[-2] == 0x61, answer.response.hex()
    more = answer.response[-1]
    get_response = bytes([0x00, 0xC0, 0x00, 0x00, more])
    answer = stub.Transmit(pb.TransmitRequest(reader="VPOS3356-E001", lease_id=lease.lease_id, apdu=get_response), timeout=EVENT_BOUND)
    assert answer.response[-2:] == b"\x90\x00" and answer.response[0] == 0x6F
    stub.PowerOff(pb.PowerOffRequest(reader="VPOS3356-E001", lease_id=lease.lease_id), timeout=EVENT_BOUND)
    hold.cancel()
    # APDUs' bytes never reach the daemon's log.
    assert "325041592E" not in daemon.log().upper()


def test_an_extended_apdu_is_refused_before_the_reader(start_daemon):
    stub = start_daemon(config={"reveal": ["root"]}).stub()
    hold = stub.Hold(pb.HoldRequest(reader="VPOS3356-E001"), timeout=EVENT_BOUND, wait_for_ready=True)
    lease = next(hold).lease.lease_id
    extended = bytes([0x00, 0xA4, 0x04, 0x00, 0x00, 0x01, 0x00]) + bytes(256)
    fails(lambda: stub.Transmit(pb.TransmitRequest(reader="VPOS3356-E001", lease_id=lease, apdu=extended), timeout=EVENT_BOUND),
          grpc.StatusCode.INVALID_ARGUMENT, "invalid-request")
    hold.cancel()


def test_read_emv_masked(start_daemon):
    stub = start_daemon(["--emulated-fleet", "1", "--scenario", "card-inserted"]).stub()
    card = stub.ReadEMV(pb.ReadEMVRequest(reader="VPOS3356-E001"), timeout=EVENT_BOUND, wait_for_ready=True)
    assert card.application_identifier == "A0000000031010"
    assert card.primary_account_number == "411111******1111"
    assert card.cardholder_name == "" and not card.revealed
    assert (card.expiry, card.application_label, card.pan_sequence_number) == ("2512", "VISA CREDIT", 1)


def test_update_firmware_streams_its_progress_to_the_result(start_daemon):
    stub = start_daemon(["--emulated-fleet", "1"]).stub()
    image = open(os.path.join(FIRMWARE, "vpos3356-3.2.0.vfw"), "rb").read()
    progress = list(stub.UpdateFirmware(pb.UpdateFirmwareRequest(reader="VPOS3356-E001", image=image), timeout=120, wait_for_ready=True))
    phases = []
    for item in progress:
        if not phases or phases[-1] != item.phase:
            phases.append(item.phase)
    assert phases[0] == "checking" and phases[-1] == "completed"
    assert "transferring" in phases and "restarting" in phases
    assert progress[-1].result.previous_version == "3.1.0" and progress[-1].result.version == "3.2.0"
    assert stub.Info(pb.InfoRequest(reader="VPOS3356-E001"), timeout=EVENT_BOUND).firmware_version == "3.2.0"
    again = list(stub.UpdateFirmware(pb.UpdateFirmwareRequest(reader="VPOS3356-E001", image=image), timeout=120))
    assert again[-1].result.already_installed


def test_an_image_below_3_0_is_refused_on_an_encrypted_link(start_daemon):
    stub = start_daemon(["--emulated-fleet", "1"]).stub()
    image = open(os.path.join(FIRMWARE, "vpos3356-2.5.0.vfw"), "rb").read()
    error, _ = fails(lambda: list(stub.UpdateFirmware(pb.UpdateFirmwareRequest(reader="VPOS3356-E001", image=image), timeout=60, wait_for_ready=True)),
                     grpc.StatusCode.FAILED_PRECONDITION, "firmware-security-downgrade")
    assert "2.5.0" in error.details()
    assert stub.Info(pb.InfoRequest(reader="VPOS3356-E001"), timeout=EVENT_BOUND).firmware_version == "3.1.0"


def test_watch_readers_reports_status_and_events(start_daemon):
    stub = start_daemon(["--emulated-fleet", "1", "--scenario", "insert-after=3"]).stub()
    seen = []
    updates = stub.WatchReaders(pb.WatchReadersRequest(), timeout=EVENT_BOUND, wait_for_ready=True)
    for update in updates:
        assert update.reader == "VPOS3356-E001"
        if update.HasField("event"):
            seen.append(update.event.name)
            if update.event.name == "card-inserted":
                break
    updates.cancel()
    assert "card-inserted" in seen


def test_pairing_and_bonds(start_daemon):
    stub = start_daemon().stub()
    wait_for_status(stub, "VPOS3356-E002", lambda status: status.link == pb.ReaderStatus.LINK_READY)
    bonds = stub.ListBonds(pb.ListBondsRequest(), timeout=EVENT_BOUND).bonds
    assert sorted(bond.reader for bond in bonds) == ["VPOS3356-E001", "VPOS3356-E002"]
    assert stub.Pair(pb.PairRequest(reader="VPOS3356-E001"), timeout=EVENT_BOUND).method == "already-paired"
    stub.Unpair(pb.UnpairRequest(reader="VPOS3356-E002"), timeout=EVENT_BOUND)
    bonds = stub.ListBonds(pb.ListBondsRequest(), timeout=EVENT_BOUND).bonds
    assert [bond.reader for bond in bonds] == ["VPOS3356-E001"]


def test_an_unknown_reader_names_the_known_ones(start_daemon):
    stub = start_daemon().stub()
    error, info = fails(lambda: stub.Info(pb.InfoRequest(reader="lane-9"), timeout=EVENT_BOUND, wait_for_ready=True),
                        grpc.StatusCode.NOT_FOUND, "unknown-reader")
    assert "VPOS3356-E001, VPOS3356-E002" in error.details()
