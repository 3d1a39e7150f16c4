/// The value of a decoded field: text, a number (a size, a count, seconds, a percentage)
/// or a yes/no. JSON carries each as its own type (`"timeoutSeconds":30`); a
/// person reads its ``description``.
///
/// A string literal makes text and an integer literal a number, so `fields["timeoutSeconds"]
/// == 30` holds for a READ MAGNETIC STRIPE of 30 seconds, and `== "30"` does not. Golden
/// files compare values as text (``GoldenRecords``): one written when every value was text
/// still matches.
public enum FieldValue: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringInterpolation,
    ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral
{
    case text(String)
    case integer(Int)
    /// A number with a fraction, such as seconds to the tenth.
    case decimal(Double)
    case boolean(Bool)

    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }

    /// The value as a person reads it: the text, the number in decimal, `true` or `false`.
    public var description: String {
        switch self {
        case .text(let text): text
        case .integer(let number): "\(number)"
        case .decimal(let number): "\(number)"
        case .boolean(let value): "\(value)"
        }
    }

    /// A JSON number, boolean or string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self = .integer(number)
        } else if let number = try? container.decode(Double.self) {
            self = .decimal(number)
        } else if let value = try? container.decode(Bool.self) {
            self = .boolean(value)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .integer(let number): try container.encode(number)
        case .decimal(let number): try container.encode(number)
        case .boolean(let value): try container.encode(value)
        }
    }
}
