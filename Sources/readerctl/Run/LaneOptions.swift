import ArgumentParser
import CardReaderKit

/// How a command that holds readers for long (`events`, `status --watch`) keeps them: the
/// lane behaviour, reconnecting after every drop it did not ask for and keeping an idle
/// link alive.
struct LaneOptions: ParsableArguments {
    @Option(
        name: .customLong("keep-alive"), parsing: .unconditional,
        help: ArgumentHelp(
            "Send GET INFO after this many seconds without a command, so that the reader keeps an idle link (it drops one after 5 minutes); 0 turns it off.",
            valueName: "seconds"))
    var keepAlive: Seconds = Seconds(240)

    @Option(
        name: .customLong("reader-idle-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "How long the reader keeps a link without a command (5 minutes, as documented): a drop after that long is reported as the idle rule.",
            valueName: "seconds"))
    var readerIdleTimeout: Seconds = Seconds(300)

    func validate() throws {
        guard keepAlive.value >= 0, keepAlive.value <= Self.longest else {
            throw ValidationError("--keep-alive must be within 0…\(Int(Self.longest)) seconds (0: off)")
        }
        guard readerIdleTimeout.value > 0, readerIdleTimeout.value <= Self.longest else {
            throw ValidationError("--reader-idle-timeout must be more than 0 and at most \(Int(Self.longest)) seconds")
        }
    }

    /// What to tell the user about these options before the run: a keep-alive no shorter
    /// than the reader's idle rule lets the reader drop every idle link first (each drop is
    /// then survived, and reported).
    var warning: String? {
        guard keepAlive.value > 0, keepAlive.value >= readerIdleTimeout.value else { return nil }
        return "--keep-alive \(keepAlive) s is not shorter than the reader's idle rule (\(readerIdleTimeout) s): "
            + "the reader will drop the idle link before each keep-alive, and the link is reconnected each time"
    }

    /// An hour: a keep-alive or an idle time beyond it helps no reader.
    static let longest = 3600.0

    /// `base` with the lane behaviour: reconnection without limit, the keep-alive, the
    /// reader's idle time.
    func apply(to base: CardReader.Configuration) -> CardReader.Configuration {
        var configuration = base
        configuration.reconnect = .always
        configuration.keepAliveInterval = keepAlive.value > 0 ? keepAlive.duration : nil
        configuration.readerIdleTimeout = readerIdleTimeout.duration
        return configuration
    }
}
