package yang

// ietfRouting is ietf-routing's static routes (RFC 8349), with the IPv4
// and IPv6 routes of ietf-ipv4-unicast-routing and ietf-ipv6-unicast-routing.
func ietfRouting() *node {
	return in("ietf-routing", container("routing",
		leaf("router-id", tIPv4),
		container("control-plane-protocols", list("control-plane-protocol", keys("type", "name"),
			leaf("type", identity("control-plane-protocol", "ietf-routing:static", "ietf-routing:direct")),
			leaf("name", tString),
			leaf("description", tString),
			container("static-routes",
				in("ietf-ipv4-unicast-routing", container("ipv4", staticRoute(tIPv4Pfx, tIPv4))),
				in("ietf-ipv6-unicast-routing", container("ipv6", staticRoute(tIPv6Pfx, tIPv6))),
			),
		)),
	))
}

// staticRoute is the route list of an address family. Its preference leaf
// (the administrative distance, 1..255) is netmcp's augmentation: RFC 8349
// gives a static route no preference (docs/datamodel.md).
func staticRoute(prefix, addr *leafType) *node {
	return list("route", keys("destination-prefix"),
		leaf("destination-prefix", prefix),
		leaf("description", tString),
		leaf("preference", rangeType(tUint8, 1, 255)),
		container("next-hop",
			leaf("outgoing-interface", tIfName, ref(refInterface)),
			leaf("next-hop-address", addr),
			leaf("special-next-hop", enum("special-next-hop", "blackhole", "unreachable", "prohibit", "receive")),
			container("next-hop-list", list("next-hop", keys("index"),
				leaf("index", tString),
				leaf("outgoing-interface", tIfName, ref(refInterface)),
				leaf("next-hop-address", addr),
			)),
		),
	)
}
