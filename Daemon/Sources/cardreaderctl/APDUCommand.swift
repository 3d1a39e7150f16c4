import ArgumentParser
import CardReaderKit
import CardReaderContract
import CommandLineOutput
import FoundationEssentials
import GRPCCore
import SwiftProtobuf

struct APDUCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apdu",
        abstract: "Hold the reader, power the chip card, send command APDUs in order, and print each response.",
        discussion: """
            The responses are the card's own (61xx and 6Cxx as it sent them), so the service's \
            reveal list must hold your user. The reader is held for the session: other clients \
            get reader-held meanwhile, and the card is powered off at the end, whatever happens.
            """)

    @OptionGroup var readerName: ReaderNameOption
    @OptionGroup var service: ServiceOptions

    @Option(help: ArgumentHelp("Seconds to wait for a card to be inserted, 0-255.", valueName: "seconds"))
    var wait = 30

    @Argument(help: ArgumentHelp("Command APDUs, in hex (spaces allowed within quotes).", valueName: "apdu"))
    var apdus: [String]

    func validate() throws {
        guard (0...255).contains(wait) else { throw ValidationError("--wait must be within 0…255 seconds") }
        for apdu in apdus where Self.bytes(apdu) == nil { throw ValidationError("\(apdu) is not hex") }
    }

    static func bytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.filter { $0 != " " })
        guard digits.count % 2 == 0, !digits.isEmpty else { return nil }
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0..<$0 + 2]), radix: 16) }.reduce(into: [UInt8]?([])) {
            result, byte in
            if let byte { result?.append(byte) } else { result = nil }
        }
    }

    func run() async throws {
        let name = readerName.reader
        let commands = apdus.compactMap(Self.bytes)
        let wait = wait
        let responses = try await ServiceCall.perform(service) { client in
            try await client.hold(.with { $0.reader = name }) { hold in
                var updates = hold.messages.makeAsyncIterator()
                guard case .lease(let lease)? = try await updates.next()?.update else { return [[UInt8]]() }
                _ = try await client.powerOn(.with {
                    $0.reader = name
                    $0.leaseID = lease.leaseID
                    $0.insertionWaitSeconds = UInt32(wait)
                })
                var responses: [[UInt8]] = []
                for command in commands {
                    let answer = try await client.transmit(.with {
                        $0.reader = name
                        $0.leaseID = lease.leaseID
                        $0.apdu = Data(command)
                    })
                    responses.append([UInt8](answer.response))
                }
                _ = try? await client.powerOff(.with {
                    $0.reader = name
                    $0.leaseID = lease.leaseID
                })
                // Returning ends Hold's stream: the lease ends with it.
                return responses
            }
        }
        for (index, response) in responses.enumerated() {
            let sw = response.suffix(2).map { Self.hex($0) }.joined()
            Output.print(
                ["command": .text(apdus[index]), "response.data": .text(response.dropLast(2).map { Self.hex($0) }.joined(separator: " ")),
                 "response.sw": .text(sw)], json: service.json)
        }
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
