extension BluetoothDevice {
    /// Pairs with the device (`Device1.Pair`), connecting first if needed, within
    /// `timeout`. The agent registered on this session's connection answers what the
    /// pairing asks. Fails with `org.bluez.Error.AuthenticationFailed` when the peer or the
    /// agent refuses, `AuthenticationCanceled` when the link drops or ``cancelPairing()``
    /// is called, `AlreadyExists` when the device is already paired.
    ///
    /// BlueZ 5.66 stalls `Pair` on an LE device that is already bonded: check
    /// `BluetoothDeviceInfo.isBonded` first.
    public func pair(timeout: Duration) async throws(BluetoothError) {
        try await session.call(path, BlueZNames.deviceInterface, "Pair", timeout: timeout, operation: "pairing with \(path)")
    }

    /// Cancels this session's `Pair` in progress (`Device1.CancelPairing`). Called with no
    /// pairing in progress, BlueZ 5.66 unpairs the device: call it only while a ``pair(timeout:)``
    /// of this session runs.
    public func cancelPairing() async {
        await session.cleanUp(path, BlueZNames.deviceInterface, "CancelPairing", timeout: .seconds(5))
    }
}

extension BluetoothDevice {
    /// Disconnects the device (`Device1.Disconnect`), e.g. after a `Pair` that connected
    /// it. Errors are ignored: a device already gone is disconnected.
    public func disconnect() async {
        await session.cleanUp(path, BlueZNames.deviceInterface, "Disconnect", timeout: .seconds(10))
    }
}
