import FoundationEssentials
import ReaderProtocol

/// Prints decoded records: aligned text for a person, or JSON Lines for a script.
struct DecodeOutput {
    let json: Bool
    let showSource: Bool

    func begin(source: String) {
        guard !json, showSource else { return }
        Swift.print("==> \(source) <==")
    }

    func print(_ record: DecodedRecord) {
        if json {
            Swift.print(jsonLine(record))
        } else {
            Swift.print(text(record))
        }
    }

    private func jsonLine(_ record: DecodedRecord) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(record) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private func text(_ record: DecodedRecord) -> String {
        let arrow = record.direction == "host-to-reader" ? "host → reader" : "reader → host"
        let label = "line \(record.line)"
        var head = label + String(repeating: " ", count: max(1, 9 - label.count)) + arrow + "  "
        if record.type == "damage" {
            head += "DAMAGE at offset \(record.offset), \(record.length) bytes: \(record.detail ?? record.reason ?? "")"
            return head
        }
        head += "\(record.kind ?? "frame") \(record.code ?? "")"
        if let name = record.name { head += " \(name)" }
        if let status = record.status { head += ", status \(status) \(record.statusName ?? "")" }
        if record.kind == "invalid", let detail = record.detail { head += ": \(detail)" }
        let fields = (record.fields ?? [:]).sorted { $0.key < $1.key }.map { "         \($0.key): \($0.value)" }
        let dataObjects = (record.dataObjects ?? []).lines(indent: "         ")
        return ([head] + fields + dataObjects).joined(separator: "\n")
    }
}
