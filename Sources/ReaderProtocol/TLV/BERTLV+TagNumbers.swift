/// Lookups by a tag written as a number, as EMV documents write them: `tlv.first(withTag:
/// 0x9F26)`. A number that is not a well-formed tag (`0x1F`, whose next byte is missing)
/// finds nothing; ``BERTag/init(_:)`` says why.
extension BERTLV {
    /// The first object with tag `tag` among this object's children and their descendants.
    public func firstDescendant(withTag tag: UInt32) -> BERTLV? {
        (try? BERTag(tag)).flatMap { firstDescendant(withTag: $0) }
    }
}

extension Sequence<BERTLV> {
    /// The first object at this level with tag `tag`.
    public func first(withTag tag: UInt32) -> BERTLV? {
        (try? BERTag(tag)).flatMap { first(withTag: $0) }
    }

    /// The first object with tag `tag` at this level or nested in any object.
    public func firstDescendant(withTag tag: UInt32) -> BERTLV? {
        (try? BERTag(tag)).flatMap { firstDescendant(withTag: $0) }
    }
}
