/// The ISO 4217 currencies and ISO 3166-1 countries a renderer names; other codes print as
/// their number.
enum ISOCodes {
    /// ISO 4217 numeric code → (alphabetic code, minor unit digits).
    static let currencies: [Int: (code: String, exponent: Int)] = [
        32: ("ARS", 2), 36: ("AUD", 2), 124: ("CAD", 2), 152: ("CLP", 0), 156: ("CNY", 2), 170: ("COP", 2),
        203: ("CZK", 2), 208: ("DKK", 2), 344: ("HKD", 2), 348: ("HUF", 2), 352: ("ISK", 0), 356: ("INR", 2),
        360: ("IDR", 2), 376: ("ILS", 2), 392: ("JPY", 0), 404: ("KES", 2), 410: ("KRW", 0), 458: ("MYR", 2),
        484: ("MXN", 2), 554: ("NZD", 2), 566: ("NGN", 2), 578: ("NOK", 2), 604: ("PEN", 2), 608: ("PHP", 2),
        643: ("RUB", 2), 682: ("SAR", 2), 702: ("SGD", 2), 704: ("VND", 0), 710: ("ZAR", 2), 752: ("SEK", 2),
        756: ("CHF", 2), 764: ("THB", 2), 784: ("AED", 2), 818: ("EGP", 2), 826: ("GBP", 2), 840: ("USD", 2),
        901: ("TWD", 2), 946: ("RON", 2), 949: ("TRY", 2), 975: ("BGN", 2), 978: ("EUR", 2), 985: ("PLN", 2),
        986: ("BRL", 2),
    ]

    /// ISO 3166-1 numeric code → (alpha-2 code, short English name).
    static let countries: [Int: (code: String, name: String)] = [
        32: ("AR", "Argentina"), 36: ("AU", "Australia"), 40: ("AT", "Austria"), 56: ("BE", "Belgium"),
        76: ("BR", "Brazil"), 100: ("BG", "Bulgaria"), 124: ("CA", "Canada"), 152: ("CL", "Chile"),
        156: ("CN", "China"), 158: ("TW", "Taiwan"), 170: ("CO", "Colombia"), 191: ("HR", "Croatia"),
        196: ("CY", "Cyprus"), 203: ("CZ", "Czechia"), 208: ("DK", "Denmark"), 233: ("EE", "Estonia"),
        246: ("FI", "Finland"), 250: ("FR", "France"), 276: ("DE", "Germany"), 300: ("GR", "Greece"),
        344: ("HK", "Hong Kong"), 348: ("HU", "Hungary"), 352: ("IS", "Iceland"), 356: ("IN", "India"),
        360: ("ID", "Indonesia"), 372: ("IE", "Ireland"), 376: ("IL", "Israel"), 380: ("IT", "Italy"),
        392: ("JP", "Japan"), 404: ("KE", "Kenya"), 410: ("KR", "Korea, Republic of"), 428: ("LV", "Latvia"),
        440: ("LT", "Lithuania"), 442: ("LU", "Luxembourg"), 458: ("MY", "Malaysia"), 470: ("MT", "Malta"),
        484: ("MX", "Mexico"), 528: ("NL", "Netherlands"), 554: ("NZ", "New Zealand"), 566: ("NG", "Nigeria"),
        578: ("NO", "Norway"), 604: ("PE", "Peru"), 608: ("PH", "Philippines"), 616: ("PL", "Poland"),
        620: ("PT", "Portugal"), 642: ("RO", "Romania"), 643: ("RU", "Russian Federation"),
        682: ("SA", "Saudi Arabia"), 702: ("SG", "Singapore"), 703: ("SK", "Slovakia"), 704: ("VN", "Viet Nam"),
        705: ("SI", "Slovenia"), 710: ("ZA", "South Africa"), 724: ("ES", "Spain"), 752: ("SE", "Sweden"),
        756: ("CH", "Switzerland"), 764: ("TH", "Thailand"), 784: ("AE", "United Arab Emirates"),
        792: ("TR", "Türkiye"), 818: ("EG", "Egypt"), 826: ("GB", "United Kingdom"), 840: ("US", "United States"),
    ]
}
