package yang

// vlanIDLimit is the platform limit of MCP-NET section 7.2: a VLAN id out
// of 1..4094 is "Network.ConfigIncompatible", reported at this path.
const vlanIDLimitPath = "/openconfig-vlan:vlans/vlan/config/vlan-id"

// ocVLANs is openconfig-vlan's vlans container.
func ocVLANs() *node {
	return in("openconfig-vlan", container("vlans",
		list("vlan", keys("vlan-id"),
			leaf("vlan-id", tVLANID, platformLimit("VLAN", vlanIDLimitPath)),
			container("config",
				leaf("vlan-id", tVLANID, platformLimit("VLAN", vlanIDLimitPath)),
				leaf("name", stringType("vlan name", 1, 32)),
				leaf("status", enum("vlan-status", "ACTIVE", "SUSPENDED")),
			),
		)))
}
