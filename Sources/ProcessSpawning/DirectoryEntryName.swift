#if canImport(Glibc)
package import Glibc
#elseif canImport(Musl)
package import Musl
#endif

/// The name of an entry `readdir` returned, read in place. `entry.pointee.d_name` would
/// copy the field's full 256 bytes, though glibc sizes each entry to its name: for an entry
/// at the end of its buffer the copy reads past it, and faults when the next page is not
/// mapped (the fault swift-corelibs-foundation fixed in `Process.run()`, PR 5472).
package func directoryEntryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
    guard let offset = MemoryLayout<dirent>.offset(of: \.d_name) else { return "" }
    return String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
}
