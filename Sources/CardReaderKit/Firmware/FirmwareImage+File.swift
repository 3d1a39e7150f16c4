import FoundationEssentials

extension FirmwareImage {
    /// Reads and checks the image in the file at `url` (a `.vfw` file). A file that cannot be
    /// read is `FirmwareImageError.Code.unreadable`, naming the path and why (no such file,
    /// a directory, permission denied); a damaged one is the error of `init(bytes:)`.
    public init(contentsOf url: URL) throws(FirmwareImageError) {
        let path = url.path(percentEncoded: false)
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadable(path: path, reason: "no such file")
        }
        guard !isDirectory else { throw .unreadable(path: path, reason: "it is a directory") }
        guard FileManager.default.isReadableFile(atPath: path) else { throw .unreadable(path: path, reason: "permission denied") }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: "it cannot be read")
        }
        try self.init(bytes: [UInt8](contents))
    }
}
