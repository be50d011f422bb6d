package serve

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
)

// ToolPingmesh is the reachability and latency matrix tool.
const ToolPingmesh = "pingmesh"

// pingmeshIn is pingmesh's input.
type pingmeshIn struct {
	Sources      []string `json:"sources,omitempty" jsonschema:"the devices that ping, by name (default: every device you may run ping on)"`
	Destinations []string `json:"destinations,omitempty" jsonschema:"the targets, by device name or address (default: every host and every router's loopback)"`
	Count        int      `json:"count,omitempty" jsonschema:"probes per pair (default 5, at most 100)"`
	Timeout      float64  `json:"timeout,omitempty" jsonschema:"seconds one ping call may take before it is retried (default 10, at most 120)"`
}

// addPingmesh registers the pingmesh tool.
func (s *Server) addPingmesh() {
	mcp.AddTool(s.srv, &mcp.Tool{Name: ToolPingmesh, Description: "Measure the reachability and latency matrix between the fleet's hosts and routers' loopbacks in one call: " +
		"each source pings each destination through its own ping tool. Each pair has sent, received, loss %, rtt min/avg/max and a status: " +
		"ok, loss, unreachable, or unknown when the ping never ran (the device refused it or did not answer, after retries with back-off): unknown is no evidence of loss."},
		s.pingmesh)
}

func (s *Server) pingmesh(ctx context.Context, req *mcp.CallToolRequest, in pingmeshIn) (*mcp.CallToolResult, *controller.Pingmesh, error) {
	if in.Count > 100 {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("pingmesh: count %d is above 100", in.Count)}
	}
	if in.Timeout < 0 || in.Timeout > 120 {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("pingmesh: timeout %g is not between 0 and 120 seconds", in.Timeout)}
	}
	id := s.hostIdentity(ctx)
	if len(id.Roles) == 0 {
		return nil, nil, rpcError(netproto.Errorf(netproto.CodeAccessDenied, "calling tool %s denied: %s has no role", ToolPingmesh, id))
	}
	mayPing := func(d *client.Device) error {
		return s.acc.pol.DecideOn(id, deviceOf(d), policy.Action{Kind: policy.CallTool, Tool: netproto.ToolPing})
	}
	ctl := *s.ctl
	ctl.Progress = &progressWriter{ctx: ctx, req: req}
	// The mesh runs over the devices this host reaches, as ask does; its
	// sources are those it may run ping on itself.
	ctl.Fleet = s.ctl.Fleet.View(func(d *client.Device) bool { return s.reaches(id, d) })
	sources := in.Sources
	if len(sources) == 0 {
		for _, d := range ctl.Fleet.Devices() {
			if d.HasTool(netproto.ToolPing) && mayPing(d) == nil {
				sources = append(sources, d.Name())
			}
		}
		if len(sources) == 0 {
			return nil, nil, rpcError(netproto.Errorf(netproto.CodeAccessDenied, "calling tool %s denied: %s may run %s on no device of the fleet", ToolPingmesh, id, netproto.ToolPing))
		}
	}
	for _, name := range sources {
		d := ctl.Fleet.Device(name)
		if d == nil {
			return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("pingmesh: no source %q among the devices you reach (list_devices)", name)}
		}
		if err := mayPing(d); err != nil {
			return nil, nil, rpcError(prefixDenial(ToolPingmesh+" from "+name, err))
		}
	}
	m, err := ctl.Pingmesh(ctx, controller.PingmeshOptions{Sources: sources, Destinations: in.Destinations,
		Count: in.Count, Timeout: time.Duration(in.Timeout * float64(time.Second))})
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	m.WriteText(&b)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, m, nil
}
