package linux

import (
	"github.com/vishvananda/netns"

	inetns "github.com/netmcp/netmcp/internal/netns"
)

// InNamespace runs fn on an OS thread switched into the network namespace
// ns (root only), and switches the thread back (internal/netns).
func InNamespace(ns netns.NsHandle, fn func() error) error { return inetns.InNamespace(ns, fn) }
