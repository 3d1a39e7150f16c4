import CardReaderService
import Testing

@Suite struct AccessPolicyTests {
    static let pos = Caller(identity: .localUser(name: "pos", uid: 1001, processID: 42))
    static let kernel = Caller(identity: .certificate(subject: "CN=emv-kernel"))

    /// Whoever may have card data may call; the lists name users and certificate subjects.
    @Test func theRevealListIsAmongTheAllowed() {
        let policy = AccessPolicy(allowed: ["pos"], revealing: ["CN=emv-kernel"])
        #expect(policy.allows("pos") && policy.allows("CN=emv-kernel"))
        #expect(!policy.allows("nobody"))
        #expect(!policy.allowsReveal(to: Self.pos))
        #expect(policy.allowsReveal(to: Self.kernel))
    }

    @Test func aCallerIsNamedForSupport() {
        #expect("\(Self.pos)" == "user pos (uid 1001, pid 42)")
        #expect("\(Self.kernel)" == "client CN=emv-kernel")
        #expect(Self.kernel.principal == "CN=emv-kernel")
    }
}
