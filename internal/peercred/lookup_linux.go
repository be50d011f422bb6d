//go:build linux

package peercred

import (
	"net"

	"github.com/vishvananda/netlink"
)

// lookup asks the kernel for the socket whose local address is the
// connection's remote one (the peer's end, on this host) and returns its
// owner.
func lookup(local, remote net.Addr) (uint32, bool) {
	s, err := netlink.SocketGet(remote, local)
	if err != nil || s == nil {
		return 0, false
	}
	return s.UID, true
}
