package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
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

	mu sync.Mutex
	// hashes are the tool lists described through Describe, by hash: a
	// methodDescribeMany request names them so they do not travel again.
	hashes map[string]bool
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
	// Known, with Tools, are the hashes of the tool lists the asker
	// knows: a list with one of them is left out.
	Known []string `json:"known,omitempty"`
}

// methodDescribeMany asks a replica (not a device's owner) to describe
// those of describeManyParams.Devices it holds: one request per owner
// instead of one per device. Its result is a describeManyResult.
const methodDescribeMany = "netmcp/describe-many"

// describeManyParams are methodDescribeMany's params.
type describeManyParams struct {
	Devices []string `json:"devices"`
	// Known are the hashes of the tool lists the asker knows; each other
	// list travels once, with the first device that has it.
	Known []string `json:"known,omitempty"`
}

// describeManyResult is methodDescribeMany's result: the description of
// each device the replica described, in the order asked; a device it
// does not hold or could not describe is left out.
type describeManyResult struct {
	Devices []string             `json:"devices"`
	Desc    []client.Description `json:"descriptions"`
}

// describeBatch bounds the devices of one methodDescribeMany request
// (a description without its tools is some hundreds of bytes).
const describeBatch = 500

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
		res, err = d.Describe(func(h string) bool { return !p.Tools || slices.Contains(p.Known, h) })
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
	// One request per owner first; the devices it left out (changing
	// hands, or no session) are asked one by one, waiting for an owner.
	var rest []string
	byOwner := map[string][]string{}
	for _, name := range names {
		if r.Serves(name) || s.Fleet.Device(name) == nil {
			continue
		}
		if own, ok := r.Owner(name); ok {
			byOwner[own] = append(byOwner[own], name)
		} else {
			rest = append(rest, name)
		}
	}
	for _, own := range slices.Sorted(maps.Keys(byOwner)) {
		devs := byOwner[own]
		for len(devs) > 0 {
			batch := devs[:min(describeBatch, len(devs))]
			devs = devs[len(batch):]
			done := s.describeMany(ctx, r, own, batch)
			n += len(done)
			for _, name := range batch {
				if !done[name] {
					rest = append(rest, name)
				}
			}
		}
	}
	for _, name := range rest {
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

// describeMany asks replica own to describe devices, gives the fleet
// each description whose tools it knows, and returns those devices.
func (s *FleetSessions) describeMany(ctx context.Context, r *Replica, own string, devices []string) map[string]bool {
	s.mu.Lock()
	known := slices.Sorted(maps.Keys(s.hashes))
	s.mu.Unlock()
	p, _ := json.Marshal(describeManyParams{Devices: devices, Known: known})
	out, err := r.forward(ctx, own, request{Method: methodDescribeMany, Params: p})
	done := map[string]bool{}
	var res describeManyResult
	if err != nil || json.Unmarshal(out, &res) != nil || len(res.Devices) != len(res.Desc) {
		return done
	}
	// The descriptions that bring a tool list first: the others name it.
	for _, withTools := range []bool{true, false} {
		for i, name := range res.Devices {
			desc := res.Desc[i]
			if (desc.Tools != nil) != withTools || !slices.Contains(devices, name) {
				continue
			}
			if desc.Tools == nil && !s.Fleet.KnownTools(desc.ToolsHash) {
				continue
			}
			if s.Fleet.SetDescription(name, desc) == nil {
				done[name] = true
				s.mu.Lock()
				if s.hashes == nil {
					s.hashes = map[string]bool{}
				}
				s.hashes[desc.ToolsHash] = true
				s.mu.Unlock()
			}
		}
	}
	return done
}

// answerDescribeMany describes the devices of a methodDescribeMany
// request this replica serves.
func (r *Replica) answerDescribeMany(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	var p describeManyParams
	if err := unmarshalParams(params, &p); err != nil {
		return nil, err
	}
	known := slices.Clone(p.Known)
	var res describeManyResult
	for _, name := range p.Devices {
		if !r.serving(name) {
			continue
		}
		dp, _ := json.Marshal(describeParams{Tools: true, Known: known})
		out, err := r.cfg.Sessions.Request(client.LocalOnly(ctx), name, MethodDescribe, dp)
		if err != nil {
			continue
		}
		var desc client.Description
		if json.Unmarshal(out, &desc) != nil {
			continue
		}
		if desc.Tools != nil {
			known = append(known, desc.ToolsHash)
		}
		res.Devices, res.Desc = append(res.Devices, name), append(res.Desc, desc)
	}
	return json.Marshal(res)
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
