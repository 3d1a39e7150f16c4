import CommandLineOutput
import ReaderProtocol

extension Output {
    /// Writes `fields`, and any groups of data objects, to standard output as
    /// ``lines(_:dataObjects:json:)`` gives them.
    static func print(_ fields: [String: FieldValue], dataObjects: [String: [EMVDataElementDescription]] = [:], json: Bool) {
        for line in lines(fields, dataObjects: dataObjects, json: json) { Swift.print(line) }
    }
}
