package agent

import (
	"context"
	"fmt"
	"net"

	vnetns "github.com/vishvananda/netns"

	"github.com/netmcp/netmcp/internal/netns"
)

// Sockets inside a named network namespace (root only; Linux). A socket
// belongs to the namespace of the thread that created it and stays there
// whatever thread later uses it, so both helpers create theirs on a
// thread switched into the namespace (netns.InNamespace). An agent whose
// device is linux://NETNS listens and calls its neighbours this way, on
// the namespace's own addresses, while the process stays in its own
// namespace.

// inNetns runs fn on a thread switched into namespace name
// (netns.InNamespace; Linux only).
func inNetns(name string, fn func() error) error {
	target, err := vnetns.GetFromName(name)
	if err != nil {
		return fmt.Errorf("agent: network namespace %s: %w", name, err)
	}
	defer target.Close()
	if err := netns.InNamespace(target, fn); err != nil {
		return fmt.Errorf("agent: in network namespace %s: %w", name, err)
	}
	return nil
}

// ListenInNetns opens a TCP listener on addr inside network namespace
// name (root only): the listening socket, and every connection it
// accepts, belong to that namespace.
func ListenInNetns(name, network, addr string) (net.Listener, error) {
	var ln net.Listener
	err := inNetns(name, func() (err error) {
		ln, err = net.Listen(network, addr)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("agent: listening on %s in namespace %s: %w", addr, name, err)
	}
	return ln, nil
}

// DialInNetns returns a dial function (for Config.Dial, or an
// http.Transport's DialContext) whose connections are made from inside
// network namespace name (root only).
func DialInNetns(name string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		// A literal address: a name could resolve to several addresses,
		// dialled by other goroutines, outside the namespace.
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if net.ParseIP(host) == nil {
			return nil, fmt.Errorf("agent: dialling %s from namespace %s: want an IP address, not a name", addr, name)
		}
		var c net.Conn
		err = inNetns(name, func() (err error) {
			var d net.Dialer
			c, err = d.DialContext(ctx, network, addr)
			return err
		})
		return c, err
	}
}
