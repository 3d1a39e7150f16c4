import ArgumentParser
import CardReaderKit
import CardReaderKitTesting
import Logging

/// Runs one operation on every reader the options name — several `--reader`s, `--all`, an
/// emulated fleet, or the emulated reader — side by side: every reader connects first, then
/// the operations run, at most `maxParallel` at once, and each reader disconnects when its
/// own is done; one reader's failure does not stop the others. Bluetooth readers share one
/// D-Bus connection. Ctrl-C cancels every operation (each reader gets CANCEL, or `CAN CAN`
/// during a firmware transfer).
enum FleetRun {
    /// One reader's result.
    struct Outcome<Value: Sendable>: Sendable {
        /// E.g. `VPOS3356-0001 (00:AA:01:00:00:00)`, `VPOS3356-E002`.
        var label: String
        var result: Result<Value, CardReaderError>
    }

    static func perform<Value: Sendable>(
        _ options: FleetReaderOptions, maxParallel: Int = 8,
        _ operation: @escaping @Sendable (_ label: String, CardReader) async throws(CardReaderError) -> Value
    ) async throws -> [Outcome<Value>] {
        let logger = options.link.logger(label: "readerctl")
        return try await CommandRun.perform { () throws(LinkError) -> [Outcome<Value>] in
            if let fleet = options.makeEmulatedFleet() {
                return try await run(on: fleet, in: "the emulated fleet", options, maxParallel: maxParallel, operation)
            }
            if options.emulated {
                return [await run(options.link.connector(reader: nil, emulator: options.emulator), logger: logger, options: options, operation)]
            }
            if options.all, let refusal = ServiceHeldReaders.refusalOfAll() { throw refusal }
            if let refusal = options.reader.lazy.compactMap(ServiceHeldReaders.refusal(for:)).first { throw refusal }
            let adapters = options.link.adapters
            let fleet =
                adapters.count > 1
                ? try await BlueZReaderFleet.open(
                    adapters: adapters, valueTransport: options.valueTransport, maximumMTU: options.mtu ?? 247, logger: logger)
                : try await BlueZReaderFleet.open(
                    adapter: adapters.first, valueTransport: options.valueTransport, maximumMTU: options.mtu ?? 247,
                    logger: logger)
            defer { Task { await fleet.close() } }
            return try await run(
                on: fleet, in: fleet.adapterNames.joined(separator: ", "), options, maxParallel: maxParallel, operation)
        }
    }

    /// Finds the readers the options name on `fleet` (`place` says where, for messages),
    /// connects every one, then runs the operations side by side.
    private static func run<Fleet: ReaderFleet, Value: Sendable>(
        on fleet: Fleet, in place: String, _ options: FleetReaderOptions, maxParallel: Int,
        _ operation: @escaping @Sendable (_ label: String, CardReader) async throws(CardReaderError) -> Value
    ) async throws(LinkError) -> [Outcome<Value>] {
        let targets: [Target<Fleet.Found, Value>] = try await find(options, on: fleet, in: place)
        // Every reader connects first (the fleet's set-ups take turns), so a connection
        // never has to be made while other readers' transfers load the radio; then the
        // operations run side by side.
        let devices = targets.compactMap { if case .device(let device) = $0 { device } else { nil } }
        var connected = await fleet.connectAll(
            devices, timeout: options.connectTimeout.duration,
            configuration: options.readerConfiguration(connectTimeout: options.connectTimeout.duration + ReaderRun.connectGrace))[...]
        let readers = targets.map { target -> Connected<Value> in
            switch target {
            case .device: .init(connected.removeFirst())
            case .missing(let outcome): .ended(outcome)
            }
        }
        let parallel = max(1, maxParallel)
        return await withTaskGroup(of: (Int, Outcome<Value>).self) { group in
            var results: [(Int, Outcome<Value>)] = []
            for (index, reader) in readers.enumerated() {
                if index >= parallel, let finished = await group.next() { results.append(finished) }
                group.addTask { (index, await run(reader, operation)) }
            }
            for await finished in group { results.append(finished) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// The readers the options name, found on `fleet` (`--all`: every one in range).
    private static func find<Fleet: ReaderFleet, Value: Sendable>(
        _ options: FleetReaderOptions, on fleet: Fleet, in place: String
    ) async throws(LinkError) -> [Target<Fleet.Found, Value>] {
        if options.all {
            let found = try await fleet.scan(for: options.scanTimeout.duration)
            guard !found.isEmpty else {
                throw LinkError(
                    .deviceNotFound,
                    "no reader (a name starting with \(ReaderGATTProfile.localNamePrefix)) advertised on \(place) within \(options.scanTimeout) s")
            }
            return found.map { .device($0) }
        }
        let found = try await fleet.find(options.reader, timeout: options.connectTimeout.duration)
        return options.reader.map { name in
            found[name].map { .device($0) }
                ?? .missing(Outcome(label: name, result: .failure(.connectionFailed(
                    reader: name,
                    LinkError(.deviceNotFound, "not seen on \(place) within \(options.connectTimeout) s")))))
        }
    }

    /// A reader the options name: found, or an outcome already (not found).
    private enum Target<Found: Sendable, Value: Sendable> {
        case device(Found)
        case missing(Outcome<Value>)
    }

    /// A reader ready to operate on, or an outcome already (not found, could not connect).
    private enum Connected<Value: Sendable>: Sendable {
        case ready(String, CardReader)
        case ended(Outcome<Value>)

        /// A fleet reader's connection attempt.
        init<Found: Sendable & CustomStringConvertible>(_ connection: ReaderConnectionOutcome<Found>) {
            let label = connection.device.description
            switch connection.result {
            case .success(let reader): self = .ready(label, reader)
            case .failure(let error): self = .ended(Outcome(label: label, result: .failure(error)))
            }
        }
    }

    /// Connects the emulated reader; the configuration's connect timeout also bounds its
    /// reconnections.
    private static func connect<Value: Sendable>(
        _ connector: any ReaderConnector, configuration: CardReader.Configuration, logger: Logger
    ) async -> Connected<Value> {
        let label = connector.readerDescription
        let reader = CardReader(connector: connector, configuration: configuration, logger: logger)
        do throws(CardReaderError) {
            try await reader.connect(timeout: configuration.connectTimeout)
            return .ready(label, reader)
        } catch {
            return .ended(Outcome(label: label, result: .failure(error)))
        }
    }

    /// Operates on a connected reader, then disconnects it.
    private static func run<Value: Sendable>(
        _ connected: Connected<Value>, _ operation: @Sendable (_ label: String, CardReader) async throws(CardReaderError) -> Value
    ) async -> Outcome<Value> {
        switch connected {
        case .ended(let outcome):
            return outcome
        case .ready(let label, let reader):
            do throws(CardReaderError) {
                let value = try await operation(label, reader)
                await reader.disconnect()
                return Outcome(label: label, result: .success(value))
            } catch {
                await reader.disconnect()
                return Outcome(label: label, result: .failure(error))
            }
        }
    }

    /// Connects, operates, disconnects (the emulated reader).
    private static func run<Value: Sendable>(
        _ connector: any ReaderConnector, logger: Logger, options: FleetReaderOptions,
        _ operation: @Sendable (_ label: String, CardReader) async throws(CardReaderError) -> Value
    ) async -> Outcome<Value> {
        let timeout = options.connectTimeout.duration
        let configuration = options.readerConfiguration(connectTimeout: timeout)
        return await run(await connect(connector, configuration: configuration, logger: logger) as Connected<Value>, operation)
    }
}
