import GRPCProtobuf

/// The readers the daemon holds, by name, in the configuration's order.
package struct HeldReaders: Sendable {
    package let all: [HeldReader]

    package init(_ readers: [HeldReader]) {
        all = readers
    }

    /// The reader named `name`; fails `unknown-reader`, naming the others.
    package func named(_ name: String) throws(GoogleRPCStatus) -> HeldReader {
        guard let reader = all.first(where: { $0.name == name }) else {
            throw ServiceFailure.unknownReader(name, known: all.map(\.name))
        }
        return reader
    }
}
