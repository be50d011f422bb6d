package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
)

// FleetSessions drives a client.Fleet for a replica: Open holds a
// device's supervised MCP session, Close releases it, and Call runs a
// tool on the session this replica holds. Its Remote method is the
// fleet's client.Options.Remote: a call on a device the fleet released
// goes through the replica (Bind) to the owner.
//
// Set Fleet before Join, and Bind the replica Join returns.
type FleetSessions struct {
	// Fleet is the replica's fleet; its devices start released.
	Fleet   *client.Fleet
	replica atomic.Pointer[Replica]
}

// Bind names the replica that forwards the released devices' calls.
func (s *FleetSessions) Bind(r *Replica) { s.replica.Store(r) }

// Open holds the device's session.
func (s *FleetSessions) Open(device string) { _ = s.Fleet.Hold(device) }

// Close releases the device's session and waits until it is closed.
func (s *FleetSessions) Close(device string) { _ = s.Fleet.Release(device) }

// Call runs tool on the session this replica holds to device and returns
// the tool result as JSON (a device's own tool error included, as the
// result it is).
func (s *FleetSessions) Call(ctx context.Context, device, tool string, args json.RawMessage) (json.RawMessage, error) {
	d := s.Fleet.Device(device)
	if d == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownDevice, device)
	}
	var a any
	if len(args) > 0 {
		a = args
	}
	res, err := d.CallTool(client.LocalOnly(ctx), tool, a)
	var te *client.ToolError
	if err != nil && (res == nil || !errors.As(err, &te)) {
		return nil, err
	}
	return json.Marshal(res)
}

// Remote forwards a call on a released device to its owner and returns
// the owner's tool result.
func (s *FleetSessions) Remote(ctx context.Context, d *client.Device, tool string, args any) (*mcp.CallToolResult, error) {
	r := s.replica.Load()
	if r == nil {
		return nil, fmt.Errorf("%w: %s: the replica has not joined", ErrNoOwner, d.Name())
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	out, err := r.Call(ctx, d.Name(), tool, raw)
	if err != nil {
		return nil, err
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("cluster: %s: the owner's result: %w", d.Name(), err)
	}
	return &res, nil
}
