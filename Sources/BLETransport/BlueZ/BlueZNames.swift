/// Names of BlueZ's D-Bus service and interfaces (its error names are ``BluetoothError/Code``s).
public enum BlueZNames {
    /// The bus name bluetoothd owns.
    public static let service = "org.bluez"
    public static let adapterInterface = "org.bluez.Adapter1"
    public static let deviceInterface = "org.bluez.Device1"
    /// What bluetoothd's battery plugin makes of a device's Battery service (`180F`): its
    /// `Percentage`, kept up to date by the plugin's own subscription to `2A19`.
    public static let batteryInterface = "org.bluez.Battery1"
    public static let gattServiceInterface = "org.bluez.GattService1"
    public static let gattCharacteristicInterface = "org.bluez.GattCharacteristic1"
    public static let gattDescriptorInterface = "org.bluez.GattDescriptor1"
    public static let gattManagerInterface = "org.bluez.GattManager1"
    public static let advertisingManagerInterface = "org.bluez.LEAdvertisingManager1"
    public static let advertisementInterface = "org.bluez.LEAdvertisement1"
    public static let agentManagerInterface = "org.bluez.AgentManager1"
    public static let agentInterface = "org.bluez.Agent1"
    /// The object `AgentManager1` is on.
    public static let managerPath: DBusObjectPath = "/org/bluez"

}
