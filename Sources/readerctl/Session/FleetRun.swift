import ArgumentParser
import BLETransport
import CardReaderKit
import CardReaderKitTesting
import Logging

/// Runs one operation on every reader the options name — several `--reader`s, `--all`, or
/// the emulated reader — side by side over one D-Bus connection: every reader connects
/// first, then the operations run, at most `maxParallel` at once, and each reader
/// disconnects when its own is done; one reader's failure does not stop the others.
/// Ctrl-C cancels every operation (each reader gets CANCEL, or `CAN CAN` during a firmware
/// transfer).
enum FleetRun {
    /// One reader's result.
    struct Outcome<Value: Sendable>: Sendable {
        /// E.g. `VPOS3356-0001 (00:AA:01:00:00:00)`.
        var label: String
        var result: Result<Value, CardReaderError>
    }

    static func perform<Value: Sendable>(
        _ options: ReaderOptions, maxParallel: Int = 8,
        _ operation: @escaping @Sendable (_ label: String, CardReader) async throws(CardReaderError) -> Value
    ) async throws -> [Outcome<Value>] {
        let logger = {
            var logger = Logger(label: "readerctl")
            logger.logLevel = options.verbose ? .trace : .warning
            return logger
        }()
        let interrupt = InterruptSignal()
        let task = Task { () -> Result<[Outcome<Value>], LinkError> in
            if options.emulated {
                let connector = EmulatedReaderConnector(reader: options.emulator.makeReader(), mtu: options.mtu ?? 23)
                return .success([await run(connector, logger: logger, options: options, operation)])
            }
            let fleet: BlueZReaderFleet
            do throws(LinkError) {
                fleet = try await BlueZReaderFleet.open(
                    adapter: options.adapter, valueTransport: options.valueTransport, maximumMTU: options.mtu ?? 247,
                    logger: logger)
            } catch {
                return .failure(error)
            }
            defer { Task { await fleet.close() } }
            var targets: [Target<Value>] = []
            do throws(LinkError) {
                if options.all {
                    let found = try await fleet.scan(for: .milliseconds(Int(options.scanTimeout * 1000)))
                    guard !found.isEmpty else {
                        return .failure(LinkError(
                            .deviceNotFound,
                            "no reader (a name starting with \(ReaderGATTProfile.localNamePrefix)) advertised on \(fleet.adapterName) within \(options.scanTimeout) s"))
                    }
                    targets = found.map { .device($0) }
                } else {
                    let found = try await fleet.find(
                        options.reader, timeout: .milliseconds(Int(options.connectTimeout * 1000)))
                    targets = options.reader.map { name in
                        found[name].map { .device($0) }
                            ?? .missing(Outcome(label: name, result: .failure(.connectionFailed(
                                reader: name,
                                LinkError(.deviceNotFound, "not seen on \(fleet.adapterName) within \(options.connectTimeout) s")))))
                    }
                }
            } catch {
                return .failure(error)
            }
            // Every reader connects first (the fleet's set-ups take turns), so a connection
            // never has to be made while other readers' transfers load the radio; then the
            // operations run side by side.
            let devices = targets.compactMap { if case .device(let device) = $0 { device } else { nil } }
            var connected = await fleet.connectAll(
                devices, timeout: .milliseconds(Int(options.connectTimeout * 1000)))[...]
            let sessions = targets.map { target -> Session<Value> in
                switch target {
                case .device: .init(connected.removeFirst())
                case .missing(let outcome): .ended(outcome)
                }
            }
            let parallel = max(1, maxParallel)
            let outcomes = await withTaskGroup(of: (Int, Outcome<Value>).self) { group in
                var results: [(Int, Outcome<Value>)] = []
                for (index, session) in sessions.enumerated() {
                    if index >= parallel, let finished = await group.next() { results.append(finished) }
                    group.addTask { (index, await run(session, operation)) }
                }
                for await finished in group { results.append(finished) }
                return results.sorted { $0.0 < $1.0 }.map(\.1)
            }
            return .success(outcomes)
        }
        interrupt.cancels(task)
        let result = await task.value
        withExtendedLifetime(interrupt) {}
        switch result {
        case .success(let outcomes):
            return outcomes
        case .failure(let error):
            ErrorReport.write(error.description, fix: error.fix)
            throw ExitStatus.linkLost.exitCode
        }
    }

    /// A reader the options name: found, or an outcome already (not found).
    private enum Target<Value: Sendable> {
        case device(DiscoveredReader)
        case missing(Outcome<Value>)
    }

    /// A reader ready to operate on, or an outcome already (not found, could not connect).
    private enum Session<Value: Sendable>: Sendable {
        case ready(String, CardReader)
        case ended(Outcome<Value>)

        /// A fleet reader's connection attempt.
        init(_ connection: BlueZReaderFleet.ConnectionOutcome) {
            let label = connection.device.summary
            switch connection.result {
            case .success(let reader): self = .ready(label, reader)
            case .failure(let error): self = .ended(Outcome(label: label, result: .failure(error)))
            }
        }
    }

    /// Connects the emulated reader; `timeout` also bounds its reconnections.
    private static func connect<Value: Sendable>(
        _ connector: any ReaderConnector, logger: Logger, within timeout: Duration
    ) async -> Session<Value> {
        let label = connector.readerDescription
        let reader = CardReader(connector: connector, configuration: CardReader.Configuration(connectTimeout: timeout), logger: logger)
        do throws(CardReaderError) {
            try await reader.connect(timeout: timeout)
            return .ready(label, reader)
        } catch {
            return .ended(Outcome(label: label, result: .failure(error)))
        }
    }

    /// Operates on a connected reader, then disconnects it.
    private static func run<Value: Sendable>(
        _ session: Session<Value>, _ operation: @Sendable (_ label: String, CardReader) async throws(CardReaderError) -> Value
    ) async -> Outcome<Value> {
        switch session {
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
        _ connector: any ReaderConnector, logger: Logger, options: ReaderOptions,
        _ operation: @Sendable (_ label: String, CardReader) async throws(CardReaderError) -> Value
    ) async -> Outcome<Value> {
        let timeout = Duration.milliseconds(Int(options.connectTimeout * 1000))
        return await run(await connect(connector, logger: logger, within: timeout) as Session<Value>, operation)
    }
}
