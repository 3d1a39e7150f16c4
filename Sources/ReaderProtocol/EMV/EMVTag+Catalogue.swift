/// The catalogue: EMV Book 3 Annex A (names, sources and formats as the book gives them),
/// Book 4 for terminal data, and the contactless kernels for `56`, `9F66`, `9F6B` and `9F6C`.
extension EMVTag {
    /// `4F`: Application Identifier (AID) - card.
    public static let applicationIdentifier = EMVTag(0x4F, "Application Identifier (AID) - card", .card, .binary, .applicationIdentifier)
    /// `50`: Application Label.
    public static let applicationLabel = EMVTag(0x50, "Application Label", .card, .alphanumeric, .text)
    /// `56`: Track 1 Data.
    public static let track1Data = EMVTag(0x56, "Track 1 Data", .card, .alphanumeric, .track1, protection: .trackData)
    /// `57`: Track 2 Equivalent Data.
    public static let track2EquivalentData = EMVTag(0x57, "Track 2 Equivalent Data", .card, .binary, .track2, protection: .trackData)
    /// `5A`: Application Primary Account Number (PAN).
    public static let applicationPAN = EMVTag(
        0x5A, "Application Primary Account Number (PAN)", .card, .compressedNumeric, .primaryAccountNumber,
        protection: .primaryAccountNumber)
    /// `5F20`: Cardholder Name.
    public static let cardholderName = EMVTag(0x5F20, "Cardholder Name", .card, .alphanumeric, .text, protection: .hidden)
    /// `5F24`: Application Expiration Date.
    public static let applicationExpirationDate = EMVTag(0x5F24, "Application Expiration Date", .card, .numeric, .date)
    /// `5F25`: Application Effective Date.
    public static let applicationEffectiveDate = EMVTag(0x5F25, "Application Effective Date", .card, .numeric, .date)
    /// `5F28`: Issuer Country Code.
    public static let issuerCountryCode = EMVTag(0x5F28, "Issuer Country Code", .card, .numeric, .country)
    /// `5F2A`: Transaction Currency Code.
    public static let transactionCurrencyCode = EMVTag(0x5F2A, "Transaction Currency Code", .terminal, .numeric, .currency)
    /// `5F2D`: Language Preference.
    public static let languagePreference = EMVTag(0x5F2D, "Language Preference", .card, .alphanumeric, .languagePreference)
    /// `5F30`: Service Code.
    public static let serviceCode = EMVTag(0x5F30, "Service Code", .card, .numeric, .serviceCode)
    /// `5F34`: Application PAN Sequence Number.
    public static let applicationPANSequenceNumber = EMVTag(0x5F34, "Application PAN Sequence Number", .card, .numeric, .digits)
    /// `5F36`: Transaction Currency Exponent.
    public static let transactionCurrencyExponent = EMVTag(0x5F36, "Transaction Currency Exponent", .terminal, .numeric, .digits)
    /// `61`: Application Template.
    public static let applicationTemplate = EMVTag(0x61, "Application Template", .card, .binary, .template)
    /// `6F`: File Control Information (FCI) Template.
    public static let fileControlInformationTemplate = EMVTag(0x6F, "File Control Information (FCI) Template", .card, .binary, .template)
    /// `70`: READ RECORD Response Message Template.
    public static let readRecordResponseTemplate = EMVTag(0x70, "READ RECORD Response Message Template", .card, .binary, .template)
    /// `77`: Response Message Template Format 2.
    public static let responseMessageTemplateFormat2 = EMVTag(0x77, "Response Message Template Format 2", .card, .binary, .template)
    /// `80`: Response Message Template Format 1.
    public static let responseMessageTemplateFormat1 = EMVTag(0x80, "Response Message Template Format 1", .card, .binary, .responseFormat1)
    /// `82`: Application Interchange Profile.
    public static let applicationInterchangeProfile = EMVTag(
        0x82, "Application Interchange Profile", .card, .binary, .bits(.applicationInterchangeProfile))
    /// `83`: Command Template.
    public static let commandTemplate = EMVTag(0x83, "Command Template", .terminal, .binary, .binary)
    /// `84`: Dedicated File (DF) Name.
    public static let dedicatedFileName = EMVTag(0x84, "Dedicated File (DF) Name", .card, .binary, .dedicatedFileName)
    /// `87`: Application Priority Indicator.
    public static let applicationPriorityIndicator = EMVTag(0x87, "Application Priority Indicator", .card, .binary, .priority)
    /// `88`: Short File Identifier (SFI).
    public static let shortFileIdentifier = EMVTag(0x88, "Short File Identifier (SFI)", .card, .binary, .integer)
    /// `8C`: Card Risk Management Data Object List 1 (CDOL1).
    public static let cdol1 = EMVTag(0x8C, "Card Risk Management Data Object List 1 (CDOL1)", .card, .binary, .dataObjectList)
    /// `8D`: Card Risk Management Data Object List 2 (CDOL2).
    public static let cdol2 = EMVTag(0x8D, "Card Risk Management Data Object List 2 (CDOL2)", .card, .binary, .dataObjectList)
    /// `8E`: Cardholder Verification Method (CVM) List.
    public static let cvmList = EMVTag(0x8E, "Cardholder Verification Method (CVM) List", .card, .binary, .cvmList)
    /// `8F`: Certification Authority Public Key Index.
    public static let certificationAuthorityPublicKeyIndex = EMVTag(
        0x8F, "Certification Authority Public Key Index", .card, .binary, .binary)
    /// `90`: Issuer Public Key Certificate.
    public static let issuerPublicKeyCertificate = EMVTag(0x90, "Issuer Public Key Certificate", .card, .binary, .binary)
    /// `94`: Application File Locator (AFL).
    public static let applicationFileLocator = EMVTag(0x94, "Application File Locator (AFL)", .card, .binary, .applicationFileLocator)
    /// `95`: Terminal Verification Results.
    public static let terminalVerificationResults = EMVTag(
        0x95, "Terminal Verification Results", .terminal, .binary, .bits(.terminalVerificationResults))
    /// `99`: Transaction Personal Identification Number (PIN) Data.
    public static let transactionPINData = EMVTag(
        0x99, "Transaction Personal Identification Number (PIN) Data", .terminal, .binary, .binary, protection: .neverShown)
    /// `9A`: Transaction Date.
    public static let transactionDate = EMVTag(0x9A, "Transaction Date", .terminal, .numeric, .date)
    /// `9C`: Transaction Type.
    public static let transactionType = EMVTag(0x9C, "Transaction Type", .terminal, .numeric, .transactionType)
    /// `9F02`: Amount, Authorised (Numeric).
    public static let amountAuthorised = EMVTag(0x9F02, "Amount, Authorised (Numeric)", .terminal, .numeric, .amount)
    /// `9F03`: Amount, Other (Numeric).
    public static let amountOther = EMVTag(0x9F03, "Amount, Other (Numeric)", .terminal, .numeric, .amount)
    /// `9F07`: Application Usage Control.
    public static let applicationUsageControl = EMVTag(
        0x9F07, "Application Usage Control", .card, .binary, .bits(.applicationUsageControl))
    /// `9F08`: Application Version Number (card).
    public static let applicationVersionNumberCard = EMVTag(0x9F08, "Application Version Number (card)", .card, .binary, .binary)
    /// `9F0B`: Cardholder Name Extended.
    public static let cardholderNameExtended = EMVTag(
        0x9F0B, "Cardholder Name Extended", .card, .alphanumeric, .text, protection: .hidden)
    /// `9F0D`: Issuer Action Code - Default.
    public static let issuerActionCodeDefault = EMVTag(
        0x9F0D, "Issuer Action Code - Default", .card, .binary, .bits(.terminalVerificationResults))
    /// `9F0E`: Issuer Action Code - Denial.
    public static let issuerActionCodeDenial = EMVTag(
        0x9F0E, "Issuer Action Code - Denial", .card, .binary, .bits(.terminalVerificationResults))
    /// `9F0F`: Issuer Action Code - Online.
    public static let issuerActionCodeOnline = EMVTag(
        0x9F0F, "Issuer Action Code - Online", .card, .binary, .bits(.terminalVerificationResults))
    /// `9F10`: Issuer Application Data.
    public static let issuerApplicationData = EMVTag(0x9F10, "Issuer Application Data", .card, .binary, .binary)
    /// `9F12`: Application Preferred Name.
    public static let applicationPreferredName = EMVTag(0x9F12, "Application Preferred Name", .card, .alphanumeric, .text)
    /// `9F1A`: Terminal Country Code.
    public static let terminalCountryCode = EMVTag(0x9F1A, "Terminal Country Code", .terminal, .numeric, .country)
    /// `9F1F`: Track 1 Discretionary Data.
    public static let track1DiscretionaryData = EMVTag(
        0x9F1F, "Track 1 Discretionary Data", .card, .alphanumeric, .text, protection: .hidden)
    /// `9F20`: Track 2 Discretionary Data.
    public static let track2DiscretionaryData = EMVTag(
        0x9F20, "Track 2 Discretionary Data", .card, .compressedNumeric, .binary, protection: .hidden)
    /// `9F21`: Transaction Time.
    public static let transactionTime = EMVTag(0x9F21, "Transaction Time", .terminal, .numeric, .time)
    /// `9F26`: Application Cryptogram.
    public static let applicationCryptogram = EMVTag(0x9F26, "Application Cryptogram", .card, .binary, .binary)
    /// `9F27`: Cryptogram Information Data.
    public static let cryptogramInformationData = EMVTag(
        0x9F27, "Cryptogram Information Data", .card, .binary, .cryptogramInformation)
    /// `9F33`: Terminal Capabilities.
    public static let terminalCapabilities = EMVTag(
        0x9F33, "Terminal Capabilities", .terminal, .binary, .bits(.terminalCapabilities))
    /// `9F34`: Cardholder Verification Method (CVM) Results.
    public static let cvmResults = EMVTag(0x9F34, "Cardholder Verification Method (CVM) Results", .terminal, .binary, .cvmResults)
    /// `9F35`: Terminal Type.
    public static let terminalType = EMVTag(0x9F35, "Terminal Type", .terminal, .numeric, .terminalType)
    /// `9F36`: Application Transaction Counter (ATC).
    public static let applicationTransactionCounter = EMVTag(
        0x9F36, "Application Transaction Counter (ATC)", .card, .binary, .integer)
    /// `9F37`: Unpredictable Number.
    public static let unpredictableNumber = EMVTag(0x9F37, "Unpredictable Number", .terminal, .binary, .binary)
    /// `9F38`: Processing Options Data Object List (PDOL).
    public static let pdol = EMVTag(0x9F38, "Processing Options Data Object List (PDOL)", .card, .binary, .dataObjectList)
    /// `9F40`: Additional Terminal Capabilities.
    public static let additionalTerminalCapabilities = EMVTag(
        0x9F40, "Additional Terminal Capabilities", .terminal, .binary, .binary)
    /// `9F42`: Application Currency Code.
    public static let applicationCurrencyCode = EMVTag(0x9F42, "Application Currency Code", .card, .numeric, .currency)
    /// `9F4A`: Static Data Authentication Tag List.
    public static let staticDataAuthenticationTagList = EMVTag(
        0x9F4A, "Static Data Authentication Tag List", .card, .binary, .tagList)
    /// `9F66`: Terminal Transaction Qualifiers (TTQ).
    public static let terminalTransactionQualifiers = EMVTag(
        0x9F66, "Terminal Transaction Qualifiers (TTQ)", .terminal, .binary, .bits(.terminalTransactionQualifiers))
    /// `9F6B`: Track 2 Data.
    public static let track2Data = EMVTag(0x9F6B, "Track 2 Data", .card, .binary, .track2, protection: .trackData)
    /// `A5`: File Control Information (FCI) Proprietary Template.
    public static let fciProprietaryTemplate = EMVTag(
        0xA5, "File Control Information (FCI) Proprietary Template", .card, .binary, .template)
    /// `BF0C`: File Control Information (FCI) Issuer Discretionary Data.
    public static let fciIssuerDiscretionaryData = EMVTag(
        0xBF0C, "File Control Information (FCI) Issuer Discretionary Data", .card, .binary, .template)

    /// Every tag in the catalogue: the named ones above and the rest of Annex A's common tags.
    public static let all: [EMVTag] = [
        applicationIdentifier, applicationLabel, track1Data, track2EquivalentData, applicationPAN,
        cardholderName, applicationExpirationDate, applicationEffectiveDate, issuerCountryCode,
        transactionCurrencyCode, languagePreference, serviceCode, applicationPANSequenceNumber,
        transactionCurrencyExponent, applicationTemplate, fileControlInformationTemplate, readRecordResponseTemplate,
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
    ] + unnamed

    /// Annex A's other common tags, reachable through ``lookup(_:)`` and ``all``.
    private static let unnamed: [EMVTag] = [
        EMVTag(0x42, "Issuer Identification Number (IIN)", .card, .numeric, .digits),
        EMVTag(0x5F50, "Issuer URL", .card, .alphanumeric, .text),
        // An IBAN is an account number: cardholder data.
        EMVTag(0x5F53, "International Bank Account Number (IBAN)", .card, .binary, .text, protection: .hidden),
        EMVTag(0x5F54, "Bank Identifier Code (BIC)", .card, .binary, .text),
        EMVTag(0x5F55, "Issuer Country Code (alpha2 format)", .card, .alphanumeric, .text),
        EMVTag(0x5F56, "Issuer Country Code (alpha3 format)", .card, .alphanumeric, .text),
        EMVTag(0x5F57, "Account Type", .terminal, .numeric, .digits),
        EMVTag(0x71, "Issuer Script Template 1", .issuer, .binary, .template),
        EMVTag(0x72, "Issuer Script Template 2", .issuer, .binary, .template),
        EMVTag(0x73, "Directory Discretionary Template", .card, .binary, .template),
        EMVTag(0x81, "Amount, Authorised (Binary)", .terminal, .binary, .binaryAmount),
        // A script command can carry a PIN block (PIN CHANGE/UNBLOCK).
        EMVTag(0x86, "Issuer Script Command", .issuer, .binary, .binary, protection: .neverShown),
        EMVTag(0x89, "Authorisation Code", .issuer, .alphanumeric, .text),
        EMVTag(0x8A, "Authorisation Response Code", .issuer, .alphanumeric, .text),
        EMVTag(0x91, "Issuer Authentication Data", .issuer, .binary, .binary),
        EMVTag(0x92, "Issuer Public Key Remainder", .card, .binary, .binary),
        EMVTag(0x93, "Signed Static Application Data", .card, .binary, .binary),
        EMVTag(0x97, "Transaction Certificate Data Object List (TDOL)", .card, .binary, .dataObjectList),
        EMVTag(0x98, "Transaction Certificate (TC) Hash Value", .terminal, .binary, .binary),
        EMVTag(0x9B, "Transaction Status Information", .terminal, .binary, .bits(.transactionStatusInformation)),
        EMVTag(0x9D, "Directory Definition File (DDF) Name", .card, .binary, .dedicatedFileName),
        EMVTag(0x9F01, "Acquirer Identifier", .terminal, .numeric, .digits),
        EMVTag(0x9F04, "Amount, Other (Binary)", .terminal, .binary, .binaryAmount),
        // Issuer-defined contents: cannot be vetted.
        EMVTag(0x9F05, "Application Discretionary Data", .card, .binary, .binary, protection: .hidden),
        EMVTag(0x9F06, "Application Identifier (AID) - terminal", .terminal, .binary, .applicationIdentifier),
        EMVTag(0x9F09, "Application Version Number (terminal)", .terminal, .binary, .binary),
        EMVTag(0x9F11, "Issuer Code Table Index", .card, .numeric, .digits),
        EMVTag(0x9F13, "Last Online Application Transaction Counter (ATC) Register", .card, .binary, .integer),
        EMVTag(0x9F14, "Lower Consecutive Offline Limit", .card, .binary, .integer),
        EMVTag(0x9F15, "Merchant Category Code", .terminal, .numeric, .digits),
        EMVTag(0x9F16, "Merchant Identifier", .terminal, .alphanumeric, .text),
        EMVTag(0x9F17, "Personal Identification Number (PIN) Try Counter", .card, .binary, .integer),
        EMVTag(0x9F18, "Issuer Script Identifier", .issuer, .binary, .binary),
        EMVTag(0x9F1B, "Terminal Floor Limit", .terminal, .binary, .binaryAmount),
        EMVTag(0x9F1C, "Terminal Identification", .terminal, .alphanumeric, .text),
        EMVTag(0x9F1D, "Terminal Risk Management Data", .terminal, .binary, .binary),
        EMVTag(0x9F1E, "Interface Device (IFD) Serial Number", .terminal, .alphanumeric, .text),
        EMVTag(0x9F22, "Certification Authority Public Key Index (terminal)", .terminal, .binary, .binary),
        EMVTag(0x9F23, "Upper Consecutive Offline Limit", .card, .binary, .integer),
        EMVTag(0x9F24, "Payment Account Reference (PAR)", .card, .alphanumeric, .text),
        EMVTag(0x9F25, "Last 4 Digits of PAN", .card, .numeric, .digits),
        // The certificate recovers with the public CA and issuer keys, and holds the PAN
        // (EMV Book 2 Table 14).
        EMVTag(0x9F2D, "ICC PIN Encipherment Public Key Certificate", .card, .binary, .binary, protection: .hidden),
        EMVTag(0x9F2E, "ICC PIN Encipherment Public Key Exponent", .card, .binary, .binary),
        EMVTag(0x9F2F, "ICC PIN Encipherment Public Key Remainder", .card, .binary, .binary),
        EMVTag(0x9F32, "Issuer Public Key Exponent", .card, .binary, .binary),
        EMVTag(0x9F39, "Point-of-Service (POS) Entry Mode", .terminal, .numeric, .digits),
        EMVTag(0x9F3A, "Amount, Reference Currency", .terminal, .binary, .binaryAmount),
        EMVTag(0x9F3B, "Application Reference Currency", .card, .numeric, .digits),
        EMVTag(0x9F3C, "Transaction Reference Currency Code", .terminal, .numeric, .currency),
        EMVTag(0x9F3D, "Transaction Reference Currency Exponent", .terminal, .numeric, .digits),
        EMVTag(0x9F41, "Transaction Sequence Counter", .terminal, .numeric, .digits),
        EMVTag(0x9F43, "Application Reference Currency Exponent", .card, .numeric, .digits),
        EMVTag(0x9F44, "Application Currency Exponent", .card, .numeric, .digits),
        EMVTag(0x9F45, "Data Authentication Code", .card, .binary, .binary),
        // Holds the PAN once recovered with public keys (EMV Book 2 Table 14).
        EMVTag(0x9F46, "ICC Public Key Certificate", .card, .binary, .binary, protection: .hidden),
        EMVTag(0x9F47, "ICC Public Key Exponent", .card, .binary, .binary),
        EMVTag(0x9F48, "ICC Public Key Remainder", .card, .binary, .binary),
        EMVTag(0x9F49, "Dynamic Data Authentication Data Object List (DDOL)", .card, .binary, .dataObjectList),
        EMVTag(0x9F4B, "Signed Dynamic Application Data", .card, .binary, .binary),
        EMVTag(0x9F4C, "ICC Dynamic Number", .card, .binary, .binary),
        EMVTag(0x9F4D, "Log Entry", .card, .binary, .binary),
        EMVTag(0x9F4E, "Merchant Name and Location", .terminal, .alphanumeric, .text),
        EMVTag(0x9F4F, "Log Format", .card, .binary, .dataObjectList),
        EMVTag(0x9F5D, "Available Offline Spending Amount", .card, .numeric, .amount),
        EMVTag(0x9F6C, "Card Transaction Qualifiers (CTQ)", .card, .binary, .bits(.cardTransactionQualifiers)),
        EMVTag(0x9F6E, "Form Factor Indicator", .card, .binary, .binary),
        EMVTag(0x9F7C, "Customer Exclusive Data", .card, .binary, .binary, protection: .hidden),
    ]
}
