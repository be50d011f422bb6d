package server

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// Capability returns the MCP-NET "network" capability object of a device.
func Capability(info device.Info) netproto.NetworkCapability {
	ds := make([]string, 0, len(info.Datastores))
	for _, d := range info.Datastores {
		ds = append(ds, string(d))
	}
	c := netproto.NetworkCapability{
		YangModules:        info.YangModules,
		CLIDialect:         info.CLIDialect,
		ConfigDatastore:    ds,
		NotificationStream: info.NotificationStreams,
		MaxBulkEdit:        info.MaxBulkEdit,
		SupportsRollback:   info.SupportsRollback,
		RollbackTimeout:    info.RollbackTimeout,
	}
	if c.YangModules == nil {
		c.YangModules = []string{}
	}
	if c.NotificationStream == nil {
		c.NotificationStream = []string{}
	}
	return c
}

// Install adds the MCP-NET capability to s: the object info appears as
// capabilities.network (MCP-NET section 3) and as
// capabilities.extensions["ietf.org/mcp-net"] in the initialize result and
// in the server/discover result (protocol 2026-07-28). Call it once, before
// s is connected. New calls it; a bare *mcp.Server (e.g. a conformance
// build) may call it directly.
func Install(s *mcp.Server, info netproto.NetworkCapability) {
	s.AddReceivingMiddleware(capabilityMiddleware(info))
}

func capabilityMiddleware(info netproto.NetworkCapability) mcp.Middleware {
	ext := capabilityMap(info)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			switch r := res.(type) {
			case *mcp.InitializeResult:
				if r.Capabilities == nil {
					r.Capabilities = &mcp.ServerCapabilities{}
				}
				r.Capabilities.AddExtension(netproto.ExtensionID, ext)
				return &initializeResult{InitializeResult: r, network: info}, nil
			case *mcp.DiscoverResult:
				if r.Capabilities == nil {
					r.Capabilities = &mcp.ServerCapabilities{}
				}
				r.Capabilities.AddExtension(netproto.ExtensionID, ext)
				return &discoverResult{DiscoverResult: r, network: info}, nil
			}
			return res, nil
		}
	}
}

// capabilityMap is the capability as a JSON object (the SDK's extension
// settings are map[string]any).
func capabilityMap(info netproto.NetworkCapability) map[string]any {
	b, _ := json.Marshal(info)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// initializeResult is an initialize result whose capabilities carry the
// top-level "network" member, which mcp.ServerCapabilities cannot hold.
type initializeResult struct {
	*mcp.InitializeResult
	network netproto.NetworkCapability
}

// MarshalJSON implements json.Marshaler.
func (r *initializeResult) MarshalJSON() ([]byte, error) {
	return withNetwork(r.InitializeResult, r.network)
}

// discoverResult is the server/discover counterpart of initializeResult.
type discoverResult struct {
	*mcp.DiscoverResult
	network netproto.NetworkCapability
}

// MarshalJSON implements json.Marshaler.
func (r *discoverResult) MarshalJSON() ([]byte, error) {
	return withNetwork(r.DiscoverResult, r.network)
}

// withNetwork marshals a result and adds capabilities.network to it.
func withNetwork(res any, network netproto.NetworkCapability) ([]byte, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	var caps map[string]json.RawMessage
	if raw, ok := top["capabilities"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &caps); err != nil {
			return nil, err
		}
	}
	if caps == nil {
		caps = map[string]json.RawMessage{}
	}
	// MCP-NET 8.1 shows "listChanged":false, which the SDK omits as empty.
	for _, k := range []string{"prompts", "tools"} {
		var c map[string]any
		if raw, ok := caps[k]; ok && json.Unmarshal(raw, &c) == nil && c != nil {
			if _, has := c["listChanged"]; !has {
				c["listChanged"] = false
				caps[k], _ = json.Marshal(c)
			}
		}
	}
	if caps[netproto.CapabilityKey], err = json.Marshal(network); err != nil {
		return nil, err
	}
	if top["capabilities"], err = json.Marshal(caps); err != nil {
		return nil, err
	}
	return json.Marshal(top)
}
