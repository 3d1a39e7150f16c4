/// How a renderer reads a data element's value (EMV Book 3 Annex A's format and the data
/// element's definition in Books 3 and 4).
enum EMVValueReading: Sendable, Hashable {
    /// A template: its value is more data objects.
    case template
    /// Characters (`a`, `an`, `ans`).
    case text
    /// BCD digits (`n`), leading zeros kept.
    case digits
    /// `n 6` `YYMMDD`.
    case date
    /// `n 6` `HHMMSS`.
    case time
    /// `n 12` in the currency's minor unit.
    case amount
    /// `b 4` in the currency's minor unit.
    case binaryAmount
    /// `n 3` ISO 4217 numeric currency code.
    case currency
    /// `n 3` ISO 3166-1 numeric country code.
    case country
    /// An unsigned binary counter or number.
    case integer
    /// An application identifier: RID and PIX.
    case applicationIdentifier
    /// A DF name: an AID, or a directory name such as `2PAY.SYS.DDF01`.
    case dedicatedFileName
    /// `94`.
    case applicationFileLocator
    /// `80` answering GET PROCESSING OPTIONS: AIP then AFL (or, answering GENERATE AC, CID,
    /// ATC, cryptogram and issuer application data).
    case responseFormat1
    /// `8E`.
    case cvmList
    /// `9F34`.
    case cvmResults
    /// A data object list: tags and lengths.
    case dataObjectList
    /// A list of tags without lengths (`9F4A`).
    case tagList
    /// Bits with a meaning each.
    case bits(EMVBitField)
    /// `5F2D`: ISO 639-1 codes, two letters each.
    case languagePreference
    /// `9F27`.
    case cryptogramInformation
    /// `9C`.
    case transactionType
    /// `9F35`.
    case terminalType
    /// `5F30`.
    case serviceCode
    /// `87`.
    case priority
    /// `5A`.
    case primaryAccountNumber
    /// `57`, `9F6B`: track 2 in BCD, `D` separator, `F` padding.
    case track2
    /// `56`: track 1 characters without sentinels.
    case track1
    /// Bytes shown in hex.
    case binary
}
