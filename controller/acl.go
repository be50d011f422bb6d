package controller

import "github.com/netmcp/netmcp/remedy"

// The ACL model (what a bound ACL drops, and the fix) is package
// remedy's, shared with the device-to-device agent; the controller names
// it in its own terms.
type (
	// ACLSet is one ACL of a device.
	ACLSet = remedy.ACLSet
	// ACLEntry is one rule of an ACL, in the terms of openconfig-acl.
	ACLEntry = remedy.ACLEntry
	// ACLBinding applies an ACL to an interface in a direction.
	ACLBinding = remedy.ACLBinding
	// Traffic is a class of packets an ACL is checked against.
	Traffic = remedy.Traffic
	// aclFinding is an ACL bound on an interface that drops some traffic.
	aclFinding = remedy.ACLFinding
)

// parseACL reads ACL sets and interface bindings from a get of PathACL.
func parseACL(data any) (map[string]*ACLSet, []ACLBinding) { return remedy.ParseACL(data) }

// droppingACLs returns the ACLs bound on a device's interface that drop t.
func droppingACLs(d *DeviceView, iface string, t Traffic) []aclFinding {
	return remedy.DroppingACLs(d.Name, d.ACLs, d.Bindings, iface, t)
}
