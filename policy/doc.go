// Package policy decides who may do what on a netmcp device server
// (MCP-NET section 9: role-based access control for configuration
// commands; troubleshooting draft section 7.2: least-privilege tokens
// scoped to tools and YANG subtrees).
//
// An [Identity] comes from a verified mTLS client certificate (subject CN),
// a verified JWT bearer token (subject and "scope" claim) or nothing
// (anonymous). A [Policy], read from a YAML file, maps identities to roles;
// a role is a named set of scopes:
//
//	tool:network.yang.get        one tool        tool:network.yang.*  a family   tool:*  all tools
//	resource:network:///interfaces               resource:network:///file/*     resource:*
//	yang:/ietf-interfaces:interfaces             read a YANG subtree (yang:* = all)
//	yang-write:/openconfig-vlan:vlans            read and write a subtree (yang-write:* = all)
//	secrets                                      reach secret subtrees (aaa, keys, SNMP communities)
//
// Subtree scopes match canonical paths element by element: a scope
// element without keys covers every list entry, one with keys only the
// entries with those key values. A token's scopes narrow the roles of its
// subject; they never widen them. [Policy.Decide] returns nil or a
// *netproto.Error -32083 (Network.AccessDenied) saying what was denied and
// why.
//
// The package also parses per-tool approval modes, verifies JWTs,
// serves RFC 9728 protected-resource metadata and limits call rates per
// identity and concurrent calls per session.
package policy
