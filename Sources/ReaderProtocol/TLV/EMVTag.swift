/// The EMV data elements the SDK knows by name (EMV Book 3 Annex A; `56`, `9F66` and `9F6B`
/// from the contactless kernel specifications), with their format and whether they carry
/// card data that renderers must mask.
public struct EMVTag: Sendable, Hashable {
    /// The tag.
    public let tag: BERTag
    /// The name EMV gives the data element.
    public let name: String
    /// The format, which decides padding and truncation in a ``DataObjectList``.
    public let format: EMVDataFormat
    /// Whether the value is card data (PAN, track data, cardholder name, discretionary data,
    /// PIN data) that must never be shown unmasked.
    public let isSensitive: Bool

    private init(_ tag: UInt32, _ name: String, _ format: EMVDataFormat, sensitive: Bool = false) {
        self.tag = BERTag(unchecked: tag)
        self.name = name
        self.format = format
        isSensitive = sensitive
    }

    /// The catalogue entry for `tag`, or `nil` for a tag the SDK does not know.
    public static func lookup(_ tag: BERTag) -> EMVTag? {
        byTag[tag]
    }

    /// Whether a renderer must mask the value of `tag`. Tags outside the catalogue count as
    /// sensitive: proprietary data objects cannot be vetted.
    public static func isSensitive(_ tag: BERTag) -> Bool {
        lookup(tag)?.isSensitive ?? true
    }

    private static let byTag = Dictionary(all.map { ($0.tag, $0) }, uniquingKeysWith: { first, _ in first })

    /// `4F`: Application Identifier (AID) - card.
    public static let applicationIdentifier = EMVTag(0x4F, "Application Identifier (AID) - card", .binary)
    /// `50`: Application Label.
    public static let applicationLabel = EMVTag(0x50, "Application Label", .alphanumeric)
    /// `56`: Track 1 Data.
    public static let track1Data = EMVTag(0x56, "Track 1 Data", .alphanumeric, sensitive: true)
    /// `57`: Track 2 Equivalent Data.
    public static let track2EquivalentData = EMVTag(0x57, "Track 2 Equivalent Data", .binary, sensitive: true)
    /// `5A`: Application Primary Account Number (PAN).
    public static let applicationPAN = EMVTag(0x5A, "Application Primary Account Number (PAN)", .compressedNumeric, sensitive: true)
    /// `5F20`: Cardholder Name.
    public static let cardholderName = EMVTag(0x5F20, "Cardholder Name", .alphanumeric, sensitive: true)
    /// `5F24`: Application Expiration Date.
    public static let applicationExpirationDate = EMVTag(0x5F24, "Application Expiration Date", .numeric)
    /// `5F25`: Application Effective Date.
    public static let applicationEffectiveDate = EMVTag(0x5F25, "Application Effective Date", .numeric)
    /// `5F28`: Issuer Country Code.
    public static let issuerCountryCode = EMVTag(0x5F28, "Issuer Country Code", .numeric)
    /// `5F2A`: Transaction Currency Code.
    public static let transactionCurrencyCode = EMVTag(0x5F2A, "Transaction Currency Code", .numeric)
    /// `5F2D`: Language Preference.
    public static let languagePreference = EMVTag(0x5F2D, "Language Preference", .alphanumeric)
    /// `5F30`: Service Code.
    public static let serviceCode = EMVTag(0x5F30, "Service Code", .numeric)
    /// `5F34`: Application PAN Sequence Number.
    public static let applicationPANSequenceNumber = EMVTag(0x5F34, "Application PAN Sequence Number", .numeric)
    /// `61`: Application Template.
    public static let applicationTemplate = EMVTag(0x61, "Application Template", .binary)
    /// `6F`: File Control Information (FCI) Template.
    public static let fileControlInformationTemplate = EMVTag(0x6F, "File Control Information (FCI) Template", .binary)
    /// `70`: READ RECORD Response Message Template.
    public static let readRecordResponseTemplate = EMVTag(0x70, "READ RECORD Response Message Template", .binary)
    /// `77`: Response Message Template Format 2.
    public static let responseMessageTemplateFormat2 = EMVTag(0x77, "Response Message Template Format 2", .binary)
    /// `80`: Response Message Template Format 1.
    public static let responseMessageTemplateFormat1 = EMVTag(0x80, "Response Message Template Format 1", .binary)
    /// `82`: Application Interchange Profile.
    public static let applicationInterchangeProfile = EMVTag(0x82, "Application Interchange Profile", .binary)
    /// `83`: Command Template.
    public static let commandTemplate = EMVTag(0x83, "Command Template", .binary)
    /// `84`: Dedicated File (DF) Name.
    public static let dedicatedFileName = EMVTag(0x84, "Dedicated File (DF) Name", .binary)
    /// `87`: Application Priority Indicator.
    public static let applicationPriorityIndicator = EMVTag(0x87, "Application Priority Indicator", .binary)
    /// `88`: Short File Identifier (SFI).
    public static let shortFileIdentifier = EMVTag(0x88, "Short File Identifier (SFI)", .binary)
    /// `8C`: Card Risk Management Data Object List 1 (CDOL1).
    public static let cdol1 = EMVTag(0x8C, "Card Risk Management Data Object List 1 (CDOL1)", .binary)
    /// `8D`: Card Risk Management Data Object List 2 (CDOL2).
    public static let cdol2 = EMVTag(0x8D, "Card Risk Management Data Object List 2 (CDOL2)", .binary)
    /// `8E`: Cardholder Verification Method (CVM) List.
    public static let cvmList = EMVTag(0x8E, "Cardholder Verification Method (CVM) List", .binary)
    /// `8F`: Certification Authority Public Key Index.
    public static let certificationAuthorityPublicKeyIndex = EMVTag(0x8F, "Certification Authority Public Key Index", .binary)
    /// `90`: Issuer Public Key Certificate.
    public static let issuerPublicKeyCertificate = EMVTag(0x90, "Issuer Public Key Certificate", .binary)
    /// `94`: Application File Locator (AFL).
    public static let applicationFileLocator = EMVTag(0x94, "Application File Locator (AFL)", .binary)
    /// `95`: Terminal Verification Results.
    public static let terminalVerificationResults = EMVTag(0x95, "Terminal Verification Results", .binary)
    /// `99`: Transaction Personal Identification Number (PIN) Data.
    public static let transactionPINData = EMVTag(0x99, "Transaction Personal Identification Number (PIN) Data", .binary, sensitive: true)
    /// `9A`: Transaction Date.
    public static let transactionDate = EMVTag(0x9A, "Transaction Date", .numeric)
    /// `9C`: Transaction Type.
    public static let transactionType = EMVTag(0x9C, "Transaction Type", .numeric)
    /// `9F02`: Amount, Authorised (Numeric).
    public static let amountAuthorised = EMVTag(0x9F02, "Amount, Authorised (Numeric)", .numeric)
    /// `9F03`: Amount, Other (Numeric).
    public static let amountOther = EMVTag(0x9F03, "Amount, Other (Numeric)", .numeric)
    /// `9F07`: Application Usage Control.
    public static let applicationUsageControl = EMVTag(0x9F07, "Application Usage Control", .binary)
    /// `9F08`: Application Version Number (card).
    public static let applicationVersionNumberCard = EMVTag(0x9F08, "Application Version Number (card)", .binary)
    /// `9F0B`: Cardholder Name Extended.
    public static let cardholderNameExtended = EMVTag(0x9F0B, "Cardholder Name Extended", .alphanumeric, sensitive: true)
    /// `9F0D`: Issuer Action Code - Default.
    public static let issuerActionCodeDefault = EMVTag(0x9F0D, "Issuer Action Code - Default", .binary)
    /// `9F0E`: Issuer Action Code - Denial.
    public static let issuerActionCodeDenial = EMVTag(0x9F0E, "Issuer Action Code - Denial", .binary)
    /// `9F0F`: Issuer Action Code - Online.
    public static let issuerActionCodeOnline = EMVTag(0x9F0F, "Issuer Action Code - Online", .binary)
    /// `9F10`: Issuer Application Data.
    public static let issuerApplicationData = EMVTag(0x9F10, "Issuer Application Data", .binary)
    /// `9F12`: Application Preferred Name.
    public static let applicationPreferredName = EMVTag(0x9F12, "Application Preferred Name", .alphanumeric)
    /// `9F1A`: Terminal Country Code.
    public static let terminalCountryCode = EMVTag(0x9F1A, "Terminal Country Code", .numeric)
    /// `9F1F`: Track 1 Discretionary Data.
    public static let track1DiscretionaryData = EMVTag(0x9F1F, "Track 1 Discretionary Data", .alphanumeric, sensitive: true)
    /// `9F20`: Track 2 Discretionary Data.
    public static let track2DiscretionaryData = EMVTag(0x9F20, "Track 2 Discretionary Data", .compressedNumeric, sensitive: true)
    /// `9F21`: Transaction Time.
    public static let transactionTime = EMVTag(0x9F21, "Transaction Time", .numeric)
    /// `9F26`: Application Cryptogram.
    public static let applicationCryptogram = EMVTag(0x9F26, "Application Cryptogram", .binary)
    /// `9F27`: Cryptogram Information Data.
    public static let cryptogramInformationData = EMVTag(0x9F27, "Cryptogram Information Data", .binary)
    /// `9F33`: Terminal Capabilities.
    public static let terminalCapabilities = EMVTag(0x9F33, "Terminal Capabilities", .binary)
    /// `9F34`: Cardholder Verification Method (CVM) Results.
    public static let cvmResults = EMVTag(0x9F34, "Cardholder Verification Method (CVM) Results", .binary)
    /// `9F35`: Terminal Type.
    public static let terminalType = EMVTag(0x9F35, "Terminal Type", .numeric)
    /// `9F36`: Application Transaction Counter (ATC).
    public static let applicationTransactionCounter = EMVTag(0x9F36, "Application Transaction Counter (ATC)", .binary)
    /// `9F37`: Unpredictable Number.
    public static let unpredictableNumber = EMVTag(0x9F37, "Unpredictable Number", .binary)
    /// `9F38`: Processing Options Data Object List (PDOL).
    public static let pdol = EMVTag(0x9F38, "Processing Options Data Object List (PDOL)", .binary)
    /// `9F40`: Additional Terminal Capabilities.
    public static let additionalTerminalCapabilities = EMVTag(0x9F40, "Additional Terminal Capabilities", .binary)
    /// `9F42`: Application Currency Code.
    public static let applicationCurrencyCode = EMVTag(0x9F42, "Application Currency Code", .numeric)
    /// `9F4A`: Static Data Authentication Tag List.
    public static let staticDataAuthenticationTagList = EMVTag(0x9F4A, "Static Data Authentication Tag List", .binary)
    /// `9F66`: Terminal Transaction Qualifiers (TTQ).
    public static let terminalTransactionQualifiers = EMVTag(0x9F66, "Terminal Transaction Qualifiers (TTQ)", .binary)
    /// `9F6B`: Track 2 Data.
    public static let track2Data = EMVTag(0x9F6B, "Track 2 Data", .binary, sensitive: true)
    /// `A5`: File Control Information (FCI) Proprietary Template.
    public static let fciProprietaryTemplate = EMVTag(0xA5, "File Control Information (FCI) Proprietary Template", .binary)
    /// `BF0C`: File Control Information (FCI) Issuer Discretionary Data.
    public static let fciIssuerDiscretionaryData = EMVTag(0xBF0C, "File Control Information (FCI) Issuer Discretionary Data", .binary)

    /// Every tag in the catalogue.
    public static let all: [EMVTag] = [
        applicationIdentifier, applicationLabel, track1Data, track2EquivalentData, applicationPAN,
        cardholderName, applicationExpirationDate, applicationEffectiveDate, issuerCountryCode,
        transactionCurrencyCode, languagePreference, serviceCode, applicationPANSequenceNumber,
        applicationTemplate, fileControlInformationTemplate, readRecordResponseTemplate,
        responseMessageTemplateFormat2, responseMessageTemplateFormat1, applicationInterchangeProfile,
        commandTemplate, dedicatedFileName, applicationPriorityIndicator, shortFileIdentifier, cdol1, cdol2,
        cvmList, certificationAuthorityPublicKeyIndex, issuerPublicKeyCertificate, applicationFileLocator,
        terminalVerificationResults, transactionPINData, transactionDate, transactionType, amountAuthorised,
        amountOther, applicationUsageControl, applicationVersionNumberCard, cardholderNameExtended,
        issuerActionCodeDefault, issuerActionCodeDenial, issuerActionCodeOnline, issuerApplicationData,
        applicationPreferredName, terminalCountryCode, track1DiscretionaryData, track2DiscretionaryData,
        transactionTime, applicationCryptogram, cryptogramInformationData, terminalCapabilities, cvmResults,
        terminalType, applicationTransactionCounter, unpredictableNumber, pdol,
        additionalTerminalCapabilities, applicationCurrencyCode, staticDataAuthenticationTagList,
        terminalTransactionQualifiers, track2Data, fciProprietaryTemplate, fciIssuerDiscretionaryData,
    ]
}

extension EMVTag: CustomStringConvertible {
    /// E.g. `9F26 (Application Cryptogram)`.
    public var description: String { "\(tag) (\(name))" }
}
