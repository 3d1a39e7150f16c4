extension ReaderFleet {
    /// Connects to every reader at once; the outcomes in the readers' order.
    ///
    /// A fleet may make first set-ups take turns (BlueZ sets up one connection at a time):
    /// each then has `timeout` from its turn, so the last may end up to `readers.count` ×
    /// `timeout` after the call, and each reader's connection bound is raised to that.
    /// Each `CardReader` keeps its deadlines on `clock`.
    public func connectAll(
        _ readers: [Found], timeout: Duration = .seconds(15),
        configuration: CardReader.Configuration = CardReader.Configuration(), clock: any Clock<Duration> = ContinuousClock()
    ) async -> [ReaderConnectionOutcome<Found>] {
        var configuration = configuration
        configuration.connectTimeout = max(configuration.connectTimeout, timeout * max(1, readers.count))
        return await withTaskGroup(of: (Int, ReaderConnectionOutcome<Found>).self) { group in
            for (index, found) in readers.enumerated() {
                let reader = CardReader(
                    connector: connector(for: found, timeout: timeout), configuration: configuration, clock: clock,
                    logger: logger)
                group.addTask {
                    do throws(CardReaderError) {
                        try await reader.connect()
                        return (index, ReaderConnectionOutcome(device: found, result: .success(reader)))
                    } catch {
                        return (index, ReaderConnectionOutcome(device: found, result: .failure(error)))
                    }
                }
            }
            var outcomes: [(Int, ReaderConnectionOutcome<Found>)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
