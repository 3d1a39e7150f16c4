import CardReaderKit
import Foundation
import Testing

/// `FirmwareImage(contentsOf:)` and how an image prints. The fixture
/// `Fixtures/firmware/vpos3356-2.5.0.vfw` is 3028 bytes (built with Python's `zlib.crc32`).
struct FirmwareImageFileTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/firmware")

    @Test func anImageFileIsReadAndChecked() throws {
        let image = try FirmwareImage(contentsOf: Self.fixtures.appendingPathComponent("vpos3356-2.5.0.vfw"))
        #expect(image.model == "VPOS3356" && image.version == "2.5.0" && image.bytes.count == 3028)
        // Printing an image names it; its bytes never print.
        #expect("\(image)" == "VPOS3356 firmware 2.5.0, 3028 bytes")
        #expect(!"\(image)".contains("56 50 46 57") && !"\(image)".contains("VPFW"))
    }

    @Test(arguments: [
        ("/nonexistent/cardreaderkit.vfw", "no such file"),
        ("", "it is a directory"),  // the fixtures folder itself
    ])
    func aFileThatCannotBeReadSaysWhy(path: String, reason: String) {
        let url = path.isEmpty ? Self.fixtures : URL(fileURLWithPath: path)
        #expect(throws: FirmwareImageError.unreadable(path: url.path(percentEncoded: false), reason: reason)) {
            try FirmwareImage(contentsOf: url)
        }
    }

    @Test func aDamagedFileIsTheImagesOwnError() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID().uuidString).vfw")
        defer { try? FileManager.default.removeItem(at: file) }
        var bytes = try Data(contentsOf: Self.fixtures.appendingPathComponent("vpos3356-2.5.0.vfw"))
        bytes[100] ^= 0xFF
        try bytes.write(to: file)
        do throws(FirmwareImageError) {
            _ = try FirmwareImage(contentsOf: file)
            Issue.record("a damaged image was accepted")
        } catch {
            #expect(error.code == .crcMismatch)
        }
    }
}
