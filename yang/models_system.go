package yang

// ocSystem is a subset of openconfig-system: hostname, local users and
// SNMP communities (the last is netmcp's choice of shape, docs/datamodel.md).
func ocSystem() *node {
	hostname := patternType("oc-inet:domain-name",
		`[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?`)
	hostname.minLen, hostname.maxLen = 1, 253
	role := union("role", stringType("string", 1, 32), identity("system-defined-roles", "openconfig-aaa-types:SYSTEM_ROLE_ADMIN"))
	return in("openconfig-system", container("system",
		container("config",
			leaf("hostname", hostname),
			leaf("domain-name", hostname),
			leaf("login-banner", tString),
			leaf("motd-banner", tString),
		),
		container("aaa", container("authentication", container("users", list("user", keys("username"),
			leaf("username", stringType("username", 1, 32)),
			container("config",
				leaf("username", stringType("username", 1, 32)),
				leaf("password", stringType("password", 1, 128)),
				leaf("password-hashed", tString),
				leaf("ssh-key", tString),
				leaf("role", role),
			),
		)))),
		container("snmp", container("communities", list("community", keys("name"),
			leaf("name", stringType("community name", 1, 32)),
			container("config",
				leaf("name", stringType("community name", 1, 32)),
				leaf("community-string", stringType("community string", 1, 64), mandatory()),
				leaf("access", enum("snmp-access", "READ_ONLY", "READ_WRITE")),
				leaf("source-prefix", tIPPfx),
			),
		))),
	))
}
