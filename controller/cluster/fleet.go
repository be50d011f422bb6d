package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
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

// MethodDescribe is the request for what a device's session says of it
// (client.Description): its initialize result and tool list. Its params
// are describeParams.
const MethodDescribe = "netmcp/describe"

// describeParams are MethodDescribe's params.
type describeParams struct {
	// Tools asks for the tool list itself, not only its hash: the asker
	// does not know that list yet.
	Tools bool `json:"tools,omitempty"`
}

// Request runs resources/read, prompts/list, prompts/get or
// MethodDescribe on the session this replica holds to device.
func (s *FleetSessions) Request(ctx context.Context, device, method string, params json.RawMessage) (json.RawMessage, error) {
	d := s.Fleet.Device(device)
	if d == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownDevice, device)
	}
	ctx = client.LocalOnly(ctx)
	var res any
	var err error
	switch method {
	case client.MethodReadResource:
		var p mcp.ReadResourceParams
		if err := unmarshalParams(params, &p); err != nil {
			return nil, err
		}
		res, err = d.ReadResource(ctx, p.URI)
	case client.MethodListPrompts:
		res, err = d.ListPrompts(ctx)
	case client.MethodGetPrompt:
		var p mcp.GetPromptParams
		if err := unmarshalParams(params, &p); err != nil {
			return nil, err
		}
		res, err = d.GetPrompt(ctx, p.Name, p.Arguments)
	case MethodDescribe:
		var p describeParams
		if err := unmarshalParams(params, &p); err != nil {
			return nil, err
		}
		res, err = d.Describe(func(string) bool { return !p.Tools })
	default:
		return nil, fmt.Errorf("cluster: method %q is not forwarded", method)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

func unmarshalParams(params json.RawMessage, v any) error {
	if len(params) == 0 {
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		return fmt.Errorf("cluster: bad params: %w", err)
	}
	return nil
}

// RemoteRequest forwards a request other than a tool call on a released
// device to its owner and decodes the owner's result into result. It is
// the fleet's client.Options.RemoteRequest.
func (s *FleetSessions) RemoteRequest(ctx context.Context, d *client.Device, method string, params, result any) error {
	r := s.replica.Load()
	if r == nil {
		return fmt.Errorf("%w: %s: the replica has not joined", ErrNoOwner, d.Name())
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	out, err := r.Request(ctx, d.Name(), method, raw)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, result); err != nil {
		return fmt.Errorf("cluster: %s: the owner's result: %w", d.Name(), err)
	}
	return nil
}

// describeConcurrency bounds the descriptions asked for at once.
const describeConcurrency = 32

// Describe asks the owners of the released devices among names what their
// sessions say of them (initialize result, tool list) and gives it to the
// fleet (client.Fleet.SetDescription), so that their capabilities and
// tools are known here as on the replica holding them. A device whose
// owner could not describe it (no session now) keeps what was known of it.
// It returns how many devices were described, and the errors joined.
func (s *FleetSessions) Describe(ctx context.Context, names []string) (int, error) {
	r := s.replica.Load()
	if r == nil {
		return 0, fmt.Errorf("%w: the replica has not joined", ErrNoOwner)
	}
	var (
		mu   sync.Mutex
		errs []error
		n    int
		wg   sync.WaitGroup
		sem  = make(chan struct{}, describeConcurrency)
	)
	for _, name := range names {
		if r.Serves(name) || s.Fleet.Device(name) == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			err := s.describe(ctx, r, name)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
			} else {
				n++
			}
		}()
	}
	wg.Wait()
	return n, errors.Join(errs...)
}

// describe describes one released device: by the hash of its tool list
// when the fleet knows that list, else with the list.
func (s *FleetSessions) describe(ctx context.Context, r *Replica, name string) error {
	var desc client.Description
	for _, withTools := range []bool{false, true} {
		p, _ := json.Marshal(describeParams{Tools: withTools})
		out, err := r.Request(ctx, name, MethodDescribe, p)
		if err != nil {
			return err
		}
		desc = client.Description{}
		if err := json.Unmarshal(out, &desc); err != nil {
			return fmt.Errorf("cluster: the owner's description: %w", err)
		}
		if desc.Tools != nil || s.Fleet.KnownTools(desc.ToolsHash) {
			break
		}
	}
	return s.Fleet.SetDescription(name, desc)
}
