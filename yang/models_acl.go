package yang

// ocACL is a subset of openconfig-acl: IPv4/IPv6 ACL sets with match and
// action, and their binding to interfaces.
func ocACL() *node {
	aclType := identity("acl-type", "openconfig-acl:ACL_IPV4", "openconfig-acl:ACL_IPV6", "openconfig-acl:ACL_L2")
	ipProto := union("ip-protocol-type", rangeType(tUint8, 0, 254), identity("ip-protocol",
		"openconfig-packet-match-types:IP_TCP", "openconfig-packet-match-types:IP_UDP",
		"openconfig-packet-match-types:IP_ICMP", "openconfig-packet-match-types:IP_IGMP",
		"openconfig-packet-match-types:IP_PIM", "openconfig-packet-match-types:IP_RSVP",
		"openconfig-packet-match-types:IP_GRE", "openconfig-packet-match-types:IP_AUTH",
		"openconfig-packet-match-types:IP_L2TP"))
	port := union("port-num-range", tUint16, enum("port-any", "ANY"),
		patternType("port-range", `[0-9]{1,5}\.\.[0-9]{1,5}`))
	match := func(name string, pfx *leafType) *node {
		return container(name, container("config",
			leaf("source-address", pfx),
			leaf("destination-address", pfx),
			leaf("protocol", ipProto),
			leaf("dscp", rangeType(tUint8, 0, 63)),
			leaf("hop-limit", tUint8),
		))
	}
	aclSets := func(name string) *node {
		return container(name+"s", list(name, keys("set-name", "type"),
			leaf("set-name", tString),
			leaf("type", aclType),
			container("config",
				leaf("set-name", tString),
				leaf("type", aclType),
			),
		))
	}
	return in("openconfig-acl", container("acl",
		container("acl-sets", list("acl-set", keys("name", "type"),
			leaf("name", tString),
			leaf("type", aclType),
			container("config",
				leaf("name", tString),
				leaf("type", aclType),
				leaf("description", tString),
			),
			container("acl-entries", list("acl-entry", keys("sequence-id"),
				leaf("sequence-id", tUint32),
				container("config",
					leaf("sequence-id", tUint32),
					leaf("description", tString),
				),
				match("ipv4", tIPv4Pfx),
				match("ipv6", tIPv6Pfx),
				container("l2", container("config",
					leaf("ethertype", union("ethertype-type", tUint16, identity("ethertype",
						"openconfig-packet-match-types:ETHERTYPE_ARP", "openconfig-packet-match-types:ETHERTYPE_IPV4",
						"openconfig-packet-match-types:ETHERTYPE_IPV6", "openconfig-packet-match-types:ETHERTYPE_LLDP"))),
				)),
				container("transport", container("config",
					leaf("source-port", port),
					leaf("destination-port", port),
				)),
				container("actions", container("config",
					leaf("forwarding-action", identity("forwarding-action",
						"openconfig-acl:ACCEPT", "openconfig-acl:DROP", "openconfig-acl:REJECT"), mandatory()),
					leaf("log-action", identity("log-action", "openconfig-acl:LOG_SYSLOG", "openconfig-acl:LOG_NONE")),
				)),
			)),
		)),
		container("interfaces", list("interface", keys("id"),
			leaf("id", tIfName, ref(refInterface)),
			container("config", leaf("id", tIfName)),
			container("interface-ref", container("config",
				leaf("interface", tIfName, ref(refInterface)),
				leaf("subinterface", tUint32),
			)),
			aclSets("ingress-acl-set"),
			aclSets("egress-acl-set"),
		)),
	))
}
