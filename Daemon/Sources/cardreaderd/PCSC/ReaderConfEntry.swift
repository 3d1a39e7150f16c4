/// One `reader.conf.d` entry: a reader cardreaderd holds, as pcscd opens it with the driver.
struct ReaderConfEntry: Equatable {
    /// The first line of every entry `install` writes: how `uninstall` knows its own.
    static let marker = "# Written by `cardreaderd pcsc install`"
    /// Entries' file names begin with this.
    static let filePrefix = "cardreaderd-"

    var reader: String
    var socket: String
    var library: String

    /// What PC/SC programs see, before pcscd's ` 00 00`.
    var friendlyName: String { "CardReaderKit \(reader)" }

    /// pcscd's configuration grammar takes letters, digits and `=\/-._@:` unquoted: a name
    /// with anything else cannot be written.
    static func isWritable(_ reader: String) -> Bool {
        !reader.isEmpty && reader.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-._".unicodeScalars.contains(scalar))
        }
    }

    var fileName: String { Self.filePrefix + reader }

    var text: String {
        """
        \(Self.marker): the chip slot of cardreaderd's reader \(reader), as a PC/SC reader.
        FRIENDLYNAME "\(friendlyName)"
        DEVICENAME   \(reader)@unix:\(socket)
        LIBPATH      \(library)

        """
    }
}
