package yang

// ietfInterfaces is the configuration of ietf-interfaces (RFC 8343) with
// the ietf-ip addresses (RFC 8344).
func ietfInterfaces() *node {
	ip := func(name string, addr *leafType, maxLen int64) *node {
		return in("ietf-ip", container(name,
			leaf("enabled", tBool),
			leaf("mtu", rangeType(tUint16, 68, 65535)),
			list("address", keys("ip"),
				leaf("ip", addr),
				leaf("prefix-length", rangeType(tUint8, 0, maxLen), mandatory()),
			),
		))
	}
	return in("ietf-interfaces", container("interfaces",
		list("interface", keys("name"),
			leaf("name", tIfName),
			leaf("description", tString),
			leaf("type", tIfType, mandatory()),
			leaf("enabled", tBool),
			ip("ipv4", tIPv4, 32),
			ip("ipv6", tIPv6, 128),
		)))
}
