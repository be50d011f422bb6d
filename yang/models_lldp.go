package yang

// ocLLDP is the configuration subset of openconfig-lldp that netmcp's
// devices map: the agent on or off. The neighbours, their TLVs and
// capabilities are operational state (docs/datamodel.md), served by the
// drivers below /openconfig-lldp:lldp/interfaces/interface[name]/neighbors.
func ocLLDP() *node {
	return in("openconfig-lldp", container("lldp",
		container("config",
			leaf("enabled", tBool),
		),
	))
}
