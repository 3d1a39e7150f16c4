/// Names of BlueZ's D-Bus service, interfaces and error replies.
public enum BlueZNames {
    /// The bus name bluetoothd owns.
    public static let service = "org.bluez"
    public static let adapterInterface = "org.bluez.Adapter1"
    public static let deviceInterface = "org.bluez.Device1"
    public static let gattServiceInterface = "org.bluez.GattService1"
    public static let gattCharacteristicInterface = "org.bluez.GattCharacteristic1"
    public static let gattDescriptorInterface = "org.bluez.GattDescriptor1"
    public static let gattManagerInterface = "org.bluez.GattManager1"
    public static let advertisingManagerInterface = "org.bluez.LEAdvertisingManager1"
    public static let advertisementInterface = "org.bluez.LEAdvertisement1"

    /// Error names BlueZ answers with.
    public enum ErrorName {
        public static let failed = "org.bluez.Error.Failed"
        public static let inProgress = "org.bluez.Error.InProgress"
        public static let notPermitted = "org.bluez.Error.NotPermitted"
        public static let notAuthorized = "org.bluez.Error.NotAuthorized"
        public static let invalidArguments = "org.bluez.Error.InvalidArguments"
        public static let invalidOffset = "org.bluez.Error.InvalidOffset"
        public static let notSupported = "org.bluez.Error.NotSupported"
        public static let alreadyConnected = "org.bluez.Error.AlreadyConnected"
        public static let alreadyExists = "org.bluez.Error.AlreadyExists"
        public static let doesNotExist = "org.bluez.Error.DoesNotExist"
        public static let notReady = "org.bluez.Error.NotReady"
    }
}
