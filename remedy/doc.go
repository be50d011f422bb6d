// Package remedy works out what to change on a device to remove a
// diagnosed fault, for the controller's remediation and the
// device-to-device agent's mitigation proposals alike: which entry of an
// ACL bound on an interface drops a class of traffic (read from
// openconfig-acl data), the change that lets the traffic pass (a YANG
// edit with its diff and CLI), and the rollback window of the confirmed
// commit that applies it.
//
// It depends on nothing but the standard library, so that both callers
// propose the same fix without one importing the other.
package remedy
