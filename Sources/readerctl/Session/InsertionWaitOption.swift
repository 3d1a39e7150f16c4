import ArgumentParser

/// `--wait`: how long chip commands wait for a card to be inserted.
struct InsertionWaitOption: ParsableArguments {
    @Option(name: .customLong("wait"), help: ArgumentHelp("Seconds to wait for a card to be inserted, 0…255.", valueName: "seconds"))
    var seconds = 0

    var duration: Duration { .seconds(seconds) }

    func validate() throws {
        guard (0...255).contains(seconds) else { throw ValidationError("--wait must be within 0…255 seconds") }
    }
}
