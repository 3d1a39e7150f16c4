/// A value kept behind one reference. A struct that holds it stays one word wide however
/// large the value is, and copies share it until one of them changes it (copy on write).
///
/// The reader's errors keep their context this way: thrown through typed throws, an error
/// is returned and copied at every level, and a context of a dozen optionals made every
/// throwing function pay for its size, in code and in time.
@propertyWrapper
struct Boxed<Value: Hashable & Sendable>: Hashable, Sendable {
    private final class Box: Sendable {
        let value: Value

        init(_ value: Value) {
            self.value = value
        }
    }

    private var box: Box

    init(wrappedValue: Value) {
        box = Box(wrappedValue)
    }

    var wrappedValue: Value {
        get { box.value }
        set { box = Box(newValue) }
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.box === rhs.box || lhs.box.value == rhs.box.value
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(box.value)
    }
}
