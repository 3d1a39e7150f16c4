#if canImport(Glibc)
package import Glibc
#elseif canImport(Musl)
package import Musl
#endif

/// Makes a `posix_spawn` child close every descriptor from 3 up, after the file actions
/// added before this call (the dup2s that give it its standard streams): it inherits
/// nothing else of this process's, not even a descriptor another thread opened without
/// close-on-exec a moment before. A descriptor held by a child keeps its pipe or socket
/// open: Foundation's `Process` learns that its own child exited only when the last copy
/// of such a socket closes.
///
/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), looked up at run time as
/// Swift does not see it; elsewhere, each descriptor open now (`/proc/self/fd`).
package func closeOtherDescriptors(in actions: inout posix_spawn_file_actions_t) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np"),
        unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3) == 0
    {
        return
    }
    guard let directory = opendir("/proc/self/fd") else { return }
    defer { closedir(directory) }
    let listing = dirfd(directory)
    while let entry = readdir(directory) {
        let name = directoryEntryName(entry)
        if let descriptor = Int32(name), descriptor > 2, descriptor != listing {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }
}
