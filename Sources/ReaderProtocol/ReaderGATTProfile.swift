/// The GATT layout of a VPOS-class reader, as its documentation gives it (§1).
public enum ReaderGATTProfile {
    /// The ISSC transparent-UART service that carries frames.
    public static let dataService = "49535343-fe7d-4ae5-8fa9-9fafd205e455"
    /// Reader → host: frames arrive as notifications of this characteristic.
    public static let transmitCharacteristic = "49535343-1e4d-4bd9-ba61-23c647249616"
    /// Host → reader: frames are written to this characteristic.
    public static let receiveCharacteristic = "49535343-8841-43f4-a8d4-ecbe34729bb3"
    /// Readers advertise their local name as `VPOS<model>-<4 hex digits>`.
    public static let localNamePrefix = "VPOS"
}
