import Logging

extension Logger {
    /// What the SDK logs to when a backend gave it no logger: nothing, as AsyncHTTPClient
    /// does. A library must not write into its host's output (or its tests') unasked; a
    /// backend that wants the SDK's lines passes a `Logger`.
    @usableFromInline package static let disabled = Logger(label: "CardReaderKit", factory: { _ in SwiftLogNoOpLogHandler() })
}
