// One import gives a backend the reader (and through it the protocol's value types) and
// the BlueZ connector; BlueZ and D-Bus themselves stay out of sight.
@_exported public import CardReaderCore
