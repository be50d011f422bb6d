package cluster

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
)

// Cause says what kind of error a forwarded call ended with, so that the
// replica that asked tells a device that answered with an error (a
// JSON-RPC error, with its code and data) from a device that could not be
// reached (no session, a lost session, a deadline), as it would for a
// device of its own.
type Cause struct {
	// Kinds name the sentinel errors the owner's error wrapped (see
	// causeKinds).
	Kinds []string `json:"kinds,omitempty"`
	// RPC is the JSON-RPC error the device answered with.
	RPC *jsonrpc.Error `json:"rpc,omitempty"`
}

// causeKinds are the errors a Cause carries by name.
var causeKinds = []struct {
	name string
	err  error
}{
	{"not_connected", client.ErrNotConnected},
	{"closed", client.ErrClosed},
	{"released", client.ErrReleased},
	{"connection_closed", mcp.ErrConnectionClosed},
	{"session_missing", mcp.ErrSessionMissing},
	{"deadline", context.DeadlineExceeded},
	{"canceled", context.Canceled},
	{"unknown_device", ErrUnknownDevice},
}

// errors returns the errors c names.
func (c *Cause) errors() []error {
	var out []error
	for _, k := range c.Kinds {
		for _, ck := range causeKinds {
			if ck.name == k {
				out = append(out, ck.err)
			}
		}
	}
	if c.RPC != nil {
		out = append(out, c.RPC)
	}
	return out
}

// describeError returns the text and the cause of an error a call on
// device ended with. The text leaves out the device and operation a
// *client.DeviceError names: the asking replica's fleet adds them, as it
// does for its own devices.
func describeError(device string, err error) (string, *Cause) {
	var de *client.DeviceError
	if errors.As(err, &de) && de.Device == device && de.Err != nil {
		err = de.Err
	}
	var c Cause
	for _, ck := range causeKinds {
		if errors.Is(err, ck.err) {
			c.Kinds = append(c.Kinds, ck.name)
		}
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		c.RPC = je
	}
	if len(c.Kinds) == 0 && c.RPC == nil {
		return err.Error(), nil
	}
	return err.Error(), &c
}
