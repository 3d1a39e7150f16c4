#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes that held card data: a PAN, track contents, a cardholder name, an APDU payload.
///
/// A copy-on-write value backed by a buffer that is overwritten with zeros (`explicit_bzero`)
/// when the last copy goes away, and whenever a mutation moves the bytes to a larger buffer.
/// The bytes never appear in `description`, `debugDescription` or `dump()`: reading them takes
/// an explicit ``revealed()`` or ``withUnsafeBytes(_:)``. Arrays and strings returned by
/// the revealing calls are ordinary Swift values that are *not* wiped; keep them short-lived.
public struct SensitiveBytes: Sendable {
    private var storage: Storage

    /// An empty value.
    public init() {
        storage = Storage(capacity: 0)
    }

    /// An empty value with room for `capacity` bytes before it reallocates.
    public init(capacity: Int) {
        storage = Storage(capacity: max(0, capacity))
    }

    /// A copy of `bytes`.
    public init(_ bytes: some Collection<UInt8>) {
        storage = Storage(capacity: bytes.count)
        storage.append(contentsOf: bytes)
    }

    /// The number of bytes.
    public var count: Int { storage.count }

    /// Whether there are no bytes.
    public var isEmpty: Bool { storage.count == 0 }

    /// Calls `body` with the bytes. The pointer must not escape `body`.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: storage.buffer.baseAddress, count: storage.count))
    }

    /// A plain copy of the bytes. The copy is not wiped when released: call this only where the
    /// bytes must leave the SDK (for example, to be written to the reader).
    public func revealed() -> [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Appends `bytes`, copying the storage first if another value shares it.
    public mutating func append(contentsOf bytes: some Collection<UInt8>) {
        reserveCapacity(count + bytes.count)
        storage.append(contentsOf: bytes)
    }

    /// Appends one byte.
    public mutating func append(_ byte: UInt8) {
        append(contentsOf: CollectionOfOne(byte))
    }

    /// Appends the bytes of another sensitive value without exposing them as an array.
    public mutating func append(contentsOf other: SensitiveBytes) {
        other.withUnsafeBytes { append(contentsOf: $0) }
    }

    /// Makes sure the storage is unshared and holds at least `minimumCapacity` bytes.
    public mutating func reserveCapacity(_ minimumCapacity: Int) {
        let unshared = isKnownUniquelyReferenced(&storage)
        if unshared && storage.buffer.count >= minimumCapacity { return }
        let grown = unshared ? max(minimumCapacity, storage.buffer.count * 2) : minimumCapacity
        let copy = Storage(capacity: max(grown, count))
        withUnsafeBytes { copy.append(contentsOf: $0) }
        storage = copy
    }

    /// Overwrites `buffer` with zeros in a way the optimiser may not remove.
    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        #if canImport(Glibc)
        explicit_bzero(base, buffer.count)
        #elseif canImport(Darwin)
        _ = memset_s(base, buffer.count, 0, buffer.count)
        #endif
    }
}

extension SensitiveBytes {
    /// Owns the allocation; wipes it on release. Mutated only through ``SensitiveBytes``'
    /// mutating methods after `isKnownUniquelyReferenced`, so no two threads can see a change:
    /// that is why the unchecked `Sendable` conformance is sound.
    private final class Storage: @unchecked Sendable {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        private(set) var count = 0

        init(capacity: Int) {
            buffer = .allocate(capacity: capacity)
        }

        /// Contiguous bytes are copied in one go: a caller in another module reaches this
        /// unspecialised, and a byte-by-byte loop through the collection's witnesses showed
        /// on the emulated reader's APDU path (SoakBenchmark's profile).
        func append(contentsOf bytes: some Collection<UInt8>) {
            let copied: Int? = bytes.withContiguousStorageIfAvailable { source in
                let copied = min(source.count, buffer.count - count)
                if copied > 0, let base = source.baseAddress, let destination = buffer.baseAddress {
                    (destination + count).update(from: base, count: copied)
                }
                return copied
            }
            if let copied {
                count += copied
                return
            }
            let end = count + bytes.count
            var position = count
            for byte in bytes where position < end {
                buffer[position] = byte
                position += 1
            }
            count = position
        }

        deinit {
            SensitiveBytes.wipe(UnsafeMutableRawBufferPointer(buffer))
            buffer.deallocate()
        }
    }
}

extension SensitiveBytes: Equatable {
    /// Compares in time that depends only on the lengths, not on where the bytes differ.
    public static func == (lhs: SensitiveBytes, rhs: SensitiveBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                var difference: UInt8 = 0
                for index in 0..<left.count {
                    difference |= left[index] ^ right[index]
                }
                return difference == 0
            }
        }
    }
}

extension SensitiveBytes: Hashable {
    /// Feeds the bytes themselves to `hasher`, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

extension SensitiveBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The length only, e.g. `16 sensitive bytes`.
    public var description: String { "\(count) sensitive bytes" }

    /// The length only, e.g. `SensitiveBytes(16 bytes, hidden)`.
    public var debugDescription: String { "SensitiveBytes(\(count) bytes, hidden)" }

    /// The length only, so that `dump` and debuggers never show the bytes.
    public var customMirror: Mirror {
        Mirror(self, children: ["count": count], displayStyle: .struct)
    }
}
