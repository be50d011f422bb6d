package controller

import "github.com/netmcp/netmcp/remedy"

// The ACL model (what a bound ACL drops, and the fix) is package
// remedy's, shared with the device-to-device agent; the controller names
// it in its own terms.
type (
	// aclSet is one ACL of a device.
	aclSet = remedy.ACLSet
	// aclBinding applies an ACL to an interface in a direction.
	aclBinding = remedy.ACLBinding
	// traffic is a class of packets an ACL is checked against.
	traffic = remedy.Traffic
	// aclFinding is an ACL bound on an interface that drops some traffic.
	aclFinding = remedy.ACLFinding
)

// parseACL reads ACL sets and interface bindings from a get of PathACL.
func parseACL(data any) (map[string]*aclSet, []aclBinding) { return remedy.ParseACL(data) }

// droppingACLs returns the ACLs bound on a device's interface that drop t.
func droppingACLs(d *deviceView, iface string, t traffic) []aclFinding {
	return remedy.DroppingACLs(d.Name, d.ACLs, d.Bindings, iface, t)
}
