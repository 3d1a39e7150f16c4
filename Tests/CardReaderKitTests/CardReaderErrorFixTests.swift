import BLETransport
import CardReaderKit
import ReaderProtocol
import Testing

/// `CardReaderError.fix`: a link that could not open or was lost carries the BlueZ layer's
/// fix, so a backend shows the same hint readerctl prints, naming the adapter where there
/// is one.
@Suite struct CardReaderErrorFixTests {
    @Test func aLinkFailureCarriesTheBlueZFix() {
        let failures: [(BluetoothError, String)] = [
            (.bluetoothdNotRunning("org.bluez has no owner"), "sudo systemctl start bluetooth"),
            (.busUnreachable(name: "org.freedesktop.DBus.Error.FileNotFound", message: "no socket"), "is dbus running?"),
            (.adapterPoweredOff("hci1"), "bluetoothctl power on"),
            (.noSuchAdapter("hci7", available: ["hci0"]), "bluetoothctl list"),
            (.deviceNotFound("name VPOS* on hci0", after: .seconds(5)), "bluetoothctl scan le"),
            (.bluez(operation: "reading BlueZ objects", name: "org.freedesktop.DBus.Error.AccessDenied", message: ""),
             "`bluetooth` group"),
        ]
        for (failure, hint) in failures {
            let error = CardReaderError.connectionFailed(reader: "VPOS", LinkError(failure))
            #expect(error.fix?.contains(hint) == true, "\(failure)")
            #expect(error.fix == failure.fix)
        }
        let poweredOff = LinkError(BluetoothError.adapterPoweredOff("hci1"))
        #expect(poweredOff.fix?.contains("btmgmt --index hci1 power on") == true)
        #expect(CardReaderError.linkLost(LinkError(BluetoothLinkLoss.bluetoothdRestarted(newOwner: nil))).fix?.contains("start bluetoothd") == true)
    }

    @Test func aTimeoutPointsAtDoctorAndACardsRefusalNeedsNone() {
        let timedOut = CardReaderError.connectionTimedOut(reader: "VPOS", after: .seconds(5))
        #expect(timedOut.fix?.contains("readerctl doctor --reader NAME") == true)
        #expect(CardReaderError.cardRefused(step: "SELECT", StatusWord(0x6A82)).fix == nil)
    }

    /// What the cardholder did wrong says what to do next: swipe once more, or leave the
    /// card in until the operation ends.
    @Test func theCardholdersMistakesSayWhatToDoNext() {
        #expect(CardReaderError.badSwipe.fix?.contains("insert its chip instead") == true)
        #expect(CardReaderError.cardRemoved.fix?.contains("leave the card in the slot") == true)
    }

    /// A reader's answer that leaves a person wondering what next gets the next step: try
    /// again when a busy reader is done, check a silent one, insert a card, present it in
    /// time (the option that gives more time is the command's own).
    @Test func answersThatNeedANextStepHaveOne() {
        #expect(CardReaderError.readerBusy(.readMagneticStripe).fix?.contains("try again when it is done") == true)
        #expect(CardReaderError.readerTimedOut(.getInfo, after: .seconds(3)).fix?.contains("readerctl doctor") == true)
        #expect(CardReaderError.noCard.fix?.contains("insert a chip card") == true)
        #expect(CardReaderError.cardholderTimeout(.readMagneticStripe).fix?.contains("swipe --timeout") == true)
        #expect(CardReaderError.cardholderTimeout(.iccPowerOn).fix?.contains("--wait SECONDS") == true)
    }
}
