package controller

import (
	"context"
	"errors"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
)

// lostDevice tells whether a call's error means the device could not be
// asked at all (not connected, its session or connection lost, the call
// timed out), as opposed to an answer that refuses the request (a JSON-RPC
// error the device sent, such as an unknown path or access denied, or a
// tool's error result). A device lost part-way through a run is reported
// unreachable: what it did not answer must not read as absent state (no
// OSPF process, no routes) nor as lost probes.
func lostDevice(err error) bool {
	var te *client.ToolError
	var je *jsonrpc.Error
	switch {
	case err == nil || errors.As(err, &te):
		return false
	case errors.Is(err, client.ErrNotConnected), errors.Is(err, client.ErrClosed),
		errors.Is(err, mcp.ErrConnectionClosed), errors.Is(err, mcp.ErrSessionMissing),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return true
	case errors.As(err, &je):
		// The SDK's own transport failures are JSON-RPC errors too:
		// client closing (-32003), server closing (-32004), rejected by
		// the transport (-32005). Any other code is the device's answer.
		return je.Code == -32003 || je.Code == -32004 || je.Code == -32005
	}
	return true // a transport error the SDK does not classify
}

// noteLost records in the report a device that a call found lost after
// the fleet was read (its error), so that a device that dies during a run
// is reported even when its reads had succeeded.
func (r *run) noteLost(dev string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.rep.Unreachable[dev]; ok {
		return
	}
	m := maps.Clone(r.rep.Unreachable) // the first map is the network's Unread: not shared further
	if m == nil {
		m = map[string]string{}
	}
	m[dev] = err.Error()
	r.rep.Unreachable = m
}
