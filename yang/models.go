package yang

// buildDefaultSchema assembles the configuration modules of docs/datamodel.md.
func buildDefaultSchema() *Schema {
	return newSchema(
		ocInterfaces(),
		ocVLANs(),
		ocNetworkInstances(),
		ietfRouting(),
		ocACL(),
		ocSystem(),
		ietfInterfaces(),
		ocLLDP(),
	)
}

// Types shared by several modules.
var (
	// tVLANID is oc-vlan-types:vlan-id.
	tVLANID = rangeType(tUint16, 1, 4094)
	// tIfType is the iana-if-type identities netmcp's devices use.
	tIfType = identity("iana-if-type", "iana-if-type:ethernetCsmacd", "iana-if-type:softwareLoopback",
		"iana-if-type:l2vlan", "iana-if-type:l3ipvlan", "iana-if-type:ieee8023adLag",
		"iana-if-type:tunnel", "iana-if-type:bridge", "iana-if-type:propVirtual", "iana-if-type:other")
	// tIfName is an interface name.
	tIfName = stringType("interface name", 1, 64)
)
