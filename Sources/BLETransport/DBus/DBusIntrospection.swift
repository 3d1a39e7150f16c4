/// Generates `org.freedesktop.DBus.Introspectable` XML.
enum DBusIntrospection {
    static let header = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }

    static let standardXML = """
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="props" type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface_name" type="s"/>
              <arg name="changed_properties" type="a{sv}"/>
              <arg name="invalidated_properties" type="as"/>
            </signal>
          </interface>

        """

    static let objectManagerXML = """
          <interface name="org.freedesktop.DBus.ObjectManager">
            <method name="GetManagedObjects">
              <arg name="objects" type="a{oa{sa{sv}}}" direction="out"/>
            </method>
            <signal name="InterfacesAdded">
              <arg name="object" type="o"/>
              <arg name="interfaces" type="a{sa{sv}}"/>
            </signal>
            <signal name="InterfacesRemoved">
              <arg name="object" type="o"/>
              <arg name="interfaces" type="as"/>
            </signal>
          </interface>

        """

    private static func arguments(_ signature: DBusSignature?, names: [String], direction: String?) -> String {
        guard let types = signature?.completeTypes else { return "" }
        var xml = ""
        for (index, type) in types.enumerated() {
            let name = index < names.count ? names[index] : "arg\(index)"
            let directionAttribute = direction.map { " direction=\"\($0)\"" } ?? ""
            xml += "      <arg name=\"\(escape(name))\" type=\"\(escape(type.rawValue))\"\(directionAttribute)/>\n"
        }
        return xml
    }

    static func xml(interfaces: [DBusInterface], isObjectManager: Bool, isObject: Bool, children: [String]) -> String {
        var xml = header + "<node>\n"
        if isObject || isObjectManager { xml += standardXML }
        if isObjectManager { xml += objectManagerXML }
        for interface in interfaces {
            xml += "  <interface name=\"\(escape(interface.name))\">\n"
            for method in interface.methods {
                xml += "    <method name=\"\(escape(method.name))\">\n"
                xml += arguments(method.inSignature, names: method.inArgumentNames, direction: "in")
                xml += arguments(method.outSignature, names: method.outArgumentNames, direction: "out")
                xml += "    </method>\n"
            }
            for signal in interface.signals {
                xml += "    <signal name=\"\(escape(signal.name))\">\n"
                xml += arguments(signal.signature, names: signal.argumentNames, direction: nil)
                xml += "    </signal>\n"
            }
            for property in interface.properties {
                xml += "    <property name=\"\(escape(property.name))\" type=\"\(escape(property.signature.rawValue))\" "
                    + "access=\"\(property.access.rawValue)\""
                if property.emitsChangedSignal {
                    xml += "/>\n"
                } else {
                    xml += ">\n      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" "
                        + "value=\"false\"/>\n    </property>\n"
                }
            }
            xml += "  </interface>\n"
        }
        for child in children {
            xml += "  <node name=\"\(escape(child))\"/>\n"
        }
        return xml + "</node>\n"
    }
}
