import Logging
import CardReaderCore
import ReaderProtocol
import Timing

/// Link security from firmware 3.0 (documentation §1.1): bonds, pairing mode, Just Works
/// or Passkey Entry. Whatever carries the link does the cryptography (bluetoothd, or
/// nothing in process); the reader decides who may pair and whom it keeps a bond with.
extension EmulatedReader {
    /// A host the reader keeps a bond with, and the bond's key.
    struct Bond: Sendable, Hashable {
        var host: String
        var key: UInt64
    }

    /// A pairing the reader has accepted and not finished.
    struct PairingInProgress: Sendable {
        var host: String
        /// The six digits on the display, for Passkey Entry; nil for Just Works.
        var passkey: Passkey?
    }

    /// Whether the reader protects its data service: from firmware 3.0, RX writes and the
    /// TX subscription need an encrypted link. It follows the running firmware, so it
    /// changes when an update crosses 3.0.
    public var requiresEncryption: Bool {
        LinkSecurityPolicy.requiresEncryption(firmwareRevision: firmwareVersion)
    }

    /// Whether the reader accepts a new bond now: for ``EmulatedReaderConfiguration/pairingModeDuration``
    /// after it starts (unless the scenario says `not-in-pairing-mode`) or after its button is held.
    public var isInPairingMode: Bool {
        pairingModeEnds.map { clock.elapsed() < $0 } ?? false
    }

    /// The hosts the reader keeps a bond with, oldest first.
    public var bondedHosts: [String] { bonds.map(\.host) }

    /// Whether the reader pairs by Passkey Entry: it has a display (GET INFO capability bit
    /// 4), or the scenario says `passkey`.
    public var displaysPasskey: Bool {
        scenario.displaysPasskey || configuration.info.capabilities?.contains(.display) == true
    }

    /// The six digits the display shows while a Passkey Entry pairing waits for them.
    public var displayedPasskey: Passkey? { pairing?.passkey }

    /// The button held 3 s: pairing mode for ``EmulatedReaderConfiguration/pairingModeDuration``.
    public func holdButtonForPairing() {
        pairingModeEnds = clock.elapsed() + configuration.pairingModeDuration
        logger.info("pairing mode", metadata: ["for": "\(configuration.pairingModeDuration)"])
    }

    /// The button told the reader to forget every host: no bond is left.
    public func forgetAllBonds() {
        bonds.removeAll()
        logger.info("all bonds forgotten")
    }

    /// A host asks to pair (SMP Pairing Request). Refused before firmware 3.0 and outside
    /// pairing mode; under `pairing-stalls` it never answers, until the caller is
    /// cancelled. Returns the method: for Passkey Entry the display now shows the digits
    /// that ``completePairing(host:passkey:)`` must be given.
    public func beginPairing(host: String) async throws(PairingError) -> PairingMethod {
        guard requiresEncryption else {
            throw PairingError(
                .pairingNotSupported, "the reader runs firmware \(firmwareVersion ?? "unknown"), which does not pair")
        }
        if scenario.pairingStalls {
            logger.info("pairing request left unanswered (scenario)")
            while !Task.isCancelled { try? await clock.sleep(clock.elapsed() + .seconds(3600)) }
            throw PairingError(.cancelled, "the pairing was cancelled before the reader answered")
        }
        let knownHost = bonds.contains { $0.host == host }
        guard isInPairingMode else {
            logger.info("pairing refused: not in pairing mode", metadata: ["known host": "\(knownHost)"])
            throw PairingError(
                .pairingRefused,
                "the reader answered SMP Pairing Failed, Pairing Not Supported (0x05): it is not in pairing mode")
        }
        let passkey = displaysPasskey ? Passkey(UInt32.random(in: 0...999_999)) : nil
        pairing = PairingInProgress(host: host, passkey: passkey)
        return passkey == nil ? .justWorks : .passkeyEntry
    }

    /// The host finishes the pairing it began, with the passkey its user typed (nil for
    /// Just Works). Refused (SMP Confirm Value Failed) when the passkey is not the one
    /// displayed, or under `wrong-passkey`; no bond is made then. On success the reader
    /// keeps the bond, dropping the oldest beyond ``EmulatedReaderConfiguration/maximumBonds``,
    /// and returns the key both sides keep.
    public func completePairing(host: String, passkey typed: Passkey?) throws(PairingError) -> UInt64 {
        guard let current = pairing, current.host == host else {
            throw PairingError(.pairingRefused, "the reader has no pairing under way with this host")
        }
        pairing = nil
        if let shown = current.passkey, typed != shown || scenario.refusesPasskeys {
            logger.info("pairing failed: confirm value mismatch")
            throw PairingError(
                .wrongPasskey, "the reader answered SMP Pairing Failed, Confirm Value Failed (0x04): the passkey did not match")
        }
        let key = UInt64.random(in: 1...UInt64.max)
        bonds.removeAll { $0.host == host }
        bonds.append(Bond(host: host, key: key))
        if bonds.count > configuration.maximumBonds {
            let dropped = bonds.removeFirst()
            logger.info("oldest bond dropped", metadata: ["host": "\(dropped.host)"])
        }
        logger.info("paired", metadata: ["method": "\(current.passkey == nil ? PairingMethod.justWorks : .passkeyEntry)"])
        return key
    }

    /// The host gave up on the pairing it began (cancelled, or its user declined).
    public func abandonPairing(host: String) {
        if pairing?.host == host { pairing = nil }
    }

    /// Whether the reader holds a bond with `host` whose key is `key`: what encrypting the
    /// link with a stored key needs (otherwise the reader answers the key request with PIN
    /// or Key Missing, 0x06). Firmware before 3.0 encrypts nothing, whatever it once kept.
    public func encryptionKeyAccepted(host: String, key: UInt64) -> Bool {
        requiresEncryption && bonds.contains { $0.host == host && $0.key == key }
    }
}
