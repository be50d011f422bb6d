package yang

// This file holds the BGP and OSPFv2 parts of openconfig-network-instance's
// protocols (openconfig-bgp, openconfig-ospfv2), config and state, as
// netmcp's devices use them (docs/datamodel.md). Leaves whose names start
// with "netmcp-" are netmcp's own where openconfig has no leaf for an FRR
// setting (a network statement, next-hop-self, the last error in FRR's
// words); they are kept in the openconfig-network-instance namespace so a
// client reads them next to the standard ones.

// Identities of the routing protocols' leaves.
var (
	tBGPSessionState = enum("session-state", "IDLE", "CONNECT", "ACTIVE", "OPENSENT", "OPENCONFIRM", "ESTABLISHED")
	tBGPPeerType     = enum("peer-type", "INTERNAL", "EXTERNAL")
	tAfiSafi         = identity("afi-safi-type",
		"openconfig-bgp-types:IPV4_UNICAST", "openconfig-bgp-types:IPV6_UNICAST")
	tBGPErrorCode = identity("bgp-error-code",
		"openconfig-bgp-types:MESSAGE_HEADER_ERROR", "openconfig-bgp-types:OPEN_MESSAGE_ERROR",
		"openconfig-bgp-types:UPDATE_MESSAGE_ERROR", "openconfig-bgp-types:HOLD_TIMER_EXPIRED",
		"openconfig-bgp-types:FSM_ERROR", "openconfig-bgp-types:CEASE")
	tBGPErrorSubcode = identity("bgp-error-subcode",
		"openconfig-bgp-types:UNSUPPORTED_VERSION_NUMBER", "openconfig-bgp-types:BAD_PEER_AS",
		"openconfig-bgp-types:BAD_BGP_IDENTIFIER", "openconfig-bgp-types:UNSUPPORTED_OPTIONAL_PARAMETER",
		"openconfig-bgp-types:UNACCEPTABLE_HOLD_TIME", "openconfig-bgp-types:MAX_PRFX_REACHED",
		"openconfig-bgp-types:ADMIN_SHUTDOWN", "openconfig-bgp-types:PEER_DECONFIGURED",
		"openconfig-bgp-types:CONNECTION_REJECTED", "openconfig-bgp-types:UNSPECIFIC")
	tOSPFNetworkType = identity("ospf-network-type",
		"openconfig-ospf-types:POINT_TO_POINT_NETWORK", "openconfig-ospf-types:BROADCAST_NETWORK",
		"openconfig-ospf-types:NON_BROADCAST_NETWORK")
	tOSPFAdjState = identity("ospf-neighbor-state",
		"openconfig-ospf-types:DOWN", "openconfig-ospf-types:ATTEMPT", "openconfig-ospf-types:INIT",
		"openconfig-ospf-types:TWO_WAY", "openconfig-ospf-types:EXSTART", "openconfig-ospf-types:EXCHANGE",
		"openconfig-ospf-types:LOADING", "openconfig-ospf-types:FULL")
	// tAreaID is an OSPF area: dotted quad or a 32-bit number.
	tAreaID = union("ospf-area-identifier", tIPv4, tUint32)
	// tTableProto names the route sources of a table connection.
	tTableProto = identity("install-protocol-type",
		"openconfig-policy-types:STATIC", "openconfig-policy-types:DIRECTLY_CONNECTED",
		"openconfig-policy-types:OSPF", "openconfig-policy-types:BGP", "openconfig-policy-types:ISIS")
	tAddrFamily = identity("address-family",
		"openconfig-types:IPV4", "openconfig-types:IPV6")
)

// ocBGP is openconfig-bgp under a protocol: the global AS and router id,
// per-family network statements, and the neighbours with their session
// state, last notification and prefix counts.
func ocBGP() *node {
	return container("bgp",
		container("global",
			container("config", bgpGlobalLeaves()...),
			container("state", bgpGlobalLeaves()...),
			container("afi-safis", list("afi-safi", keys("afi-safi-name"),
				leaf("afi-safi-name", tAfiSafi),
				container("config",
					leaf("afi-safi-name", tAfiSafi),
					leaf("enabled", tBool),
					leafList("netmcp-networks", tIPPfx),
				),
			)),
		),
		container("neighbors", list("neighbor", keys("neighbor-address"),
			leaf("neighbor-address", tIPAddr),
			container("config", bgpNeighborConfig()...),
			container("state", append(bgpNeighborConfig(),
				leaf("local-as", tUint32),
				leaf("peer-type", tBGPPeerType),
				leaf("session-state", tBGPSessionState),
				leaf("last-established", tUint64),
				leaf("established-transitions", tUint64),
				leaf("netmcp-last-error", tString),
				leaf("netmcp-remote-router-id", tIPv4),
				container("messages", container("received",
					leaf("last-notification-error-code", tBGPErrorCode),
					leaf("last-notification-error-subcode", tBGPErrorSubcode),
				)),
			)...),
			container("timers",
				container("config", leaf("hold-time", tUint16), leaf("keepalive-interval", tUint16)),
				container("state", leaf("hold-time", tUint16), leaf("keepalive-interval", tUint16),
					leaf("negotiated-hold-time", tUint16)),
			),
			container("transport",
				container("config", leaf("local-address", union("local-address", tIPAddr, tString))),
				container("state", leaf("local-address", union("local-address", tIPAddr, tString))),
			),
			container("ebgp-multihop",
				container("config", leaf("enabled", tBool), leaf("multihop-ttl", tUint8)),
			),
			container("afi-safis", list("afi-safi", keys("afi-safi-name"),
				leaf("afi-safi-name", tAfiSafi),
				container("config", leaf("afi-safi-name", tAfiSafi), leaf("enabled", tBool)),
				container("state", leaf("afi-safi-name", tAfiSafi), leaf("enabled", tBool), leaf("active", tBool),
					container("prefixes", leaf("received", tUint32), leaf("sent", tUint32), leaf("installed", tUint32)),
				),
				container("ipv4-unicast", container("prefix-limit", container("config", leaf("max-prefixes", tUint32)))),
				container("ipv6-unicast", container("prefix-limit", container("config", leaf("max-prefixes", tUint32)))),
			)),
		)),
	)
}

func bgpGlobalLeaves() []option {
	return []option{
		leaf("as", tUint32),
		leaf("router-id", tIPv4),
		leaf("netmcp-keepalive-interval", tUint16),
		leaf("netmcp-hold-time", tUint16),
	}
}

func bgpNeighborConfig() []option {
	return []option{
		leaf("neighbor-address", tIPAddr),
		leaf("peer-as", tUint32),
		leaf("description", tString),
		leaf("enabled", tBool),
		// auth-password is a secret by its name (SecretLeaves).
		leaf("auth-password", tString),
		leaf("netmcp-next-hop-self", tBool),
	}
}

// ocOSPFv2 is openconfig-ospfv2 under a protocol: the router id, areas,
// their interfaces (network type, cost, passive, timers) and the
// neighbours seen on each interface.
func ocOSPFv2() *node {
	return container("ospfv2",
		container("global",
			container("config", ospfGlobalLeaves()...),
			container("state", ospfGlobalLeaves()...),
		),
		container("areas", list("area", keys("identifier"),
			leaf("identifier", tAreaID),
			container("config", leaf("identifier", tAreaID)),
			container("state", leaf("identifier", tAreaID)),
			container("interfaces", list("interface", keys("id"),
				leaf("id", tIfName, ref(refInterface)),
				container("config", ospfIfLeaves()...),
				container("state", append(ospfIfLeaves(),
					leaf("netmcp-state", tString),
					leaf("netmcp-oper-up", tBool),
				)...),
				container("timers",
					container("config", leaf("hello-interval", tUint16), leaf("dead-interval", tUint32)),
					container("state", leaf("hello-interval", tUint16), leaf("dead-interval", tUint32)),
				),
				container("neighbors", list("neighbor", keys("router-id"),
					leaf("router-id", tIPv4),
					container("state",
						leaf("router-id", tIPv4),
						leaf("neighbor-address", tIPv4),
						leaf("priority", tUint8),
						leaf("adjacency-state", tOSPFAdjState),
						leaf("dead-time", tUint64),
						leaf("last-established-time", tUint64),
						leaf("netmcp-reason", tString),
						leaf("netmcp-role", tString),
					),
				)),
			)),
		)),
	)
}

func ospfGlobalLeaves() []option {
	return []option{
		leaf("router-id", tIPv4),
		leaf("netmcp-default-originate", tBool),
		leaf("netmcp-reference-bandwidth", tUint32),
	}
}

func ospfIfLeaves() []option {
	return []option{
		leaf("id", tIfName),
		leaf("network-type", tOSPFNetworkType),
		leaf("metric", tUint16),
		leaf("passive", tBool),
		leaf("priority", tUint8),
		leaf("netmcp-mtu-ignore", tBool),
	}
}

// ocTableConnections is a network-instance's table connections: the
// redistribution of one protocol's routes into another.
func ocTableConnections() *node {
	leaves := func() []option {
		return []option{leaf("src-protocol", tTableProto), leaf("dst-protocol", tTableProto), leaf("address-family", tAddrFamily)}
	}
	entry := append([]option{keys("src-protocol", "dst-protocol", "address-family")}, leaves()...)
	entry = append(entry, container("config", leaves()...))
	return container("table-connections", list("table-connection", entry...))
}
