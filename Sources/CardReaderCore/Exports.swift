// Backends that link CardReaderKit get the protocol's value types (tracks, APDUs,
// TLV, status codes) without a second import.
@_exported public import ReaderProtocol
