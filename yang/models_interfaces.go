package yang

// ocInterfaces is openconfig-interfaces with the openconfig-if-ip addresses
// of subinterfaces and the openconfig-vlan switched-vlan and routed-vlan
// augments.
func ocInterfaces() *node {
	return in("openconfig-interfaces", container("interfaces",
		list("interface", keys("name"),
			leaf("name", tIfName),
			container("config",
				leaf("name", tIfName),
				leaf("type", tIfType, mandatory()),
				leaf("mtu", tUint16),
				leaf("description", tString),
				leaf("enabled", tBool),
			),
			container("hold-time", container("config",
				leaf("up", tUint32),
				leaf("down", tUint32),
			)),
			container("subinterfaces", list("subinterface", keys("index"),
				leaf("index", tUint32),
				container("config",
					leaf("index", tUint32),
					leaf("description", tString),
					leaf("enabled", tBool),
					// The MCP-NET draft's section 8.4 example puts ipv4 here.
					ocIfIP("ipv4", tIPv4, 32),
					ocIfIP("ipv6", tIPv6, 128),
				),
				ocIfIP("ipv4", tIPv4, 32),
				ocIfIP("ipv6", tIPv6, 128),
			)),
			in("openconfig-vlan", container("switched-vlan", container("config",
				leaf("interface-mode", enum("oc-vlan-types:vlan-mode-type", "ACCESS", "TRUNK")),
				leaf("native-vlan", tVLANID),
				leaf("access-vlan", tVLANID),
				leafList("trunk-vlans", union("trunk-vlans", tVLANID,
					patternType("oc-vlan-types:vlan-range", `[0-9]{1,4}\.\.[0-9]{1,4}`))),
			))),
			in("openconfig-vlan", container("routed-vlan",
				container("config",
					leaf("vlan", union("vlan", tVLANID, tIfName), ref(refVLAN)),
				),
				ocIfIP("ipv4", tIPv4, 32),
				ocIfIP("ipv6", tIPv6, 128),
			)),
		)))
}

// ocIfIP is the ipv4 or ipv6 container of openconfig-if-ip, written
// unqualified below a subinterface (openconfig-if-ip:ipv4 is accepted too).
func ocIfIP(name string, addr *leafType, maxLen int64) *node {
	return in("openconfig-if-ip", container(name, alias("openconfig-if-ip:"+name),
		container("addresses", list("address", keys("ip"),
			leaf("ip", addr),
			container("config",
				leaf("ip", addr),
				leaf("prefix-length", rangeType(tUint8, 0, maxLen)),
			),
		)),
		container("config",
			leaf("enabled", tBool),
			leaf("mtu", rangeType(tUint16, 68, 65535)),
			leaf("dhcp-client", tBool),
		),
	))
}
