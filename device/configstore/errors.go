package configstore

import (
	"errors"
	"fmt"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// ErrClosed is returned by a Store's methods after Close.
var ErrClosed = errors.New("configstore: store is closed")

// LockedError is returned when another owner holds the candidate lock. The
// MCP-NET draft has no code for it; the MCP layer maps it.
type LockedError struct {
	// Holder owns the candidate lock.
	Holder device.Owner
}

// Error names the lock holder.
func (e *LockedError) Error() string {
	user := e.Holder.User
	if user == "" {
		user = "unknown"
	}
	return fmt.Sprintf("candidate configuration is locked by session %s (user %s); "+
		"it holds uncommitted changes until it commits or discards them or its session ends",
		e.Holder.Session, user)
}

// annotate returns err as a *netproto.Error: an existing one keeps its code
// and gets prefix before its detail and path if it has none; any other error
// gets code.
func annotate(err error, code int, prefix, path string) *netproto.Error {
	var ne *netproto.Error
	if errors.As(err, &ne) {
		c := *ne
		if prefix != "" {
			c.Detail = prefix + c.Detail
		}
		if c.Path == "" {
			c.Path = path
		}
		return &c
	}
	e := netproto.Errorf(code, "%s%v", prefix, err)
	e.Path = path
	return e
}

// errNothingPending is the error of Confirm and CancelCommit when no
// confirmed commit is pending and none expired since the last commit.
func errNothingPending(what string) *netproto.Error {
	return netproto.Errorf(netproto.CodeConfigIncompatible, "%s: no confirmed commit is pending", what)
}
