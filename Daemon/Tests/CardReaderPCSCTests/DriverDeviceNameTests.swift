import Testing

import CardReaderPCSC

/// DEVICENAME as `cardreaderd pcsc install` writes it: pcscd takes it as it is because it
/// has a colon (pcsc-lite 1.9.9's configfile.l checks any other for a file).
@Suite struct DriverDeviceNameTests {
    @Test func aReaderAtASocket() throws {
        let name = try #require(DriverDeviceName("lane-1@unix:/run/cardreaderd/cardreaderd.sock"))
        #expect(name.reader == "lane-1")
        #expect(name.socketPath == "/run/cardreaderd/cardreaderd.sock")
        #expect(name.description == "lane-1@unix:/run/cardreaderd/cardreaderd.sock")
    }

    @Test func aReaderWhoseNameHasAnAt() throws {
        let name = try #require(DriverDeviceName("till@2@unix:/tmp/a@b/cardreaderd.sock"))
        #expect(name.reader == "till@2")
        #expect(name.socketPath == "/tmp/a@b/cardreaderd.sock")
    }

    @Test(arguments: ["", "lane-1", "lane-1@/run/x.sock", "@unix:/run/x.sock", "lane-1@unix:run/x.sock", "lane 1@unix:/run/x.sock"])
    func namesThatNameNoReader(_ text: String) {
        #expect(DriverDeviceName(text) == nil)
    }
}
