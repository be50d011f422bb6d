package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
)

// Tool names of `netmcp controller serve`.
const (
	ToolListDevices    = "list_devices"
	ToolCallDeviceTool = "call_device_tool"
	ToolAsk            = "ask"
)

// Server exposes a controller's fleet to an MCP host: one connection for
// the whole network. Tools: list_devices, call_device_tool (a device's
// own tool, under the device's own policy and approval gate), ask (an
// intent, with progress notifications, its report saved in Store) and
// pingmesh (the reachability and latency matrix).
// Elicitations from devices are forwarded to the host whose call caused
// them (Server.Elicit is the fleet's client.Options.Elicit). What the
// devices answer is masked for a host that may not read their secrets.
type Server struct {
	ctl     *controller.Controller
	store   controller.Store
	reports reportStore // store, or with a cluster shared with the other replicas (cluster.go)
	srv     *mcp.Server
	d2d     d2dState      // d2d.go: the CA pushed D2D reports are checked against
	acc     *access       // access.go: who may call what, and the audit log
	relay   relays        // relay.go: the host requests in progress, for elicitations
	secrets secretsState  // mask.go: what the devices' answers are masked with
	watch   *watches      // watch.go: what feeds the resource subscriptions
	cluster Cluster       // cluster.go: the other replicas (nil: a single controller)
	tasks   *server.Tasks // ask as a task of the Tasks extension
}

// DeviceInfo is one device of list_devices.
type DeviceInfo struct {
	Name    string   `json:"name"`
	State   string   `json:"state"`
	Error   string   `json:"error,omitempty"`
	Dialect string   `json:"dialect,omitempty"`
	Site    string   `json:"site,omitempty"`
	Role    string   `json:"role,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Tools   []string `json:"tools"`
	// Stream is "on-change" while the controller follows the device's
	// change stream (gNMI ON_CHANGE) for a resource subscription.
	Stream string `json:"stream,omitempty"`
	// Replica is, in a controller cluster, the replica instance that
	// holds the device's session (its calls are forwarded there).
	Replica string `json:"replica,omitempty"`
}

// ListDevicesOut is list_devices' result.
type ListDevicesOut struct {
	Devices []DeviceInfo `json:"devices"`
}

// callDeviceToolIn is call_device_tool's input.
type callDeviceToolIn struct {
	Device    string         `json:"device" jsonschema:"the device's name (list_devices)"`
	Tool      string         `json:"tool" jsonschema:"the device's tool, e.g. network.yang.get"`
	Arguments map[string]any `json:"arguments,omitempty" jsonschema:"the tool's arguments"`
}

// askIn is ask's input.
type askIn struct {
	Intent string `json:"intent" jsonschema:"the intent in words (e.g. what is wrong with the network?) or as a JSON object"`
}

// New builds the controller's MCP server over ctl's fleet, saving the
// reports of ask in store (none when its Dir is empty).
func New(ctl *controller.Controller, store controller.Store, version string) *Server {
	s := &Server{ctl: ctl, store: store, reports: store, acc: newAccess(AccessOptions{}), secrets: newSecretsState()}
	s.watch = newWatches(s, WatchOptions{})
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "netmcp-controller", Version: version}, &mcp.ServerOptions{
		// watch.go: device resources followed by their change stream or polled
		SubscribeHandler:   s.subscribeResource,
		UnsubscribeHandler: s.unsubscribeResource,
		Instructions:       "One connection to the whole network: list_devices, call_device_tool to run a device's own tool, ask to diagnose an intent (reachability, path MTU, BGP or OSPF down, what is wrong with the network?), pingmesh for the reachability and latency matrix between hosts and routers' loopbacks.",
	})
	mcp.AddTool(s.srv, &mcp.Tool{Name: ToolListDevices, Description: "List the fleet's devices: connection state, dialect, site, role, tags and tools."}, s.listDevices)
	mcp.AddTool(s.srv, &mcp.Tool{Name: ToolCallDeviceTool, Description: "Call one tool of one device (its result is returned as the device gave it). Writes go through the device's own authorization and approval; its elicitations are forwarded to you."}, s.callDeviceTool)
	mcp.AddTool(s.srv, &mcp.Tool{Name: ToolAsk, Description: "Diagnose an intent across the fleet and return the report (docs/controller.md): is_anomaly, faulty_devices, root_cause_name, root causes with evidence, proposed changes (not applied). Progress is sent as progress notifications; a client that declares the Tasks extension (io.modelcontextprotocol/tasks) gets a task instead, its progress in statusMessage."}, s.ask)
	s.addResources() // resources.go: mcp://<device>/<module>:<path> and the reports
	s.addD2D()       // d2d.go: submit_report and the D2D reports
	s.addPingmesh()  // pingmesh.go: the reachability and latency matrix
	// ask runs as a task for a client that declares the Tasks extension,
	// bound to the host's identity (set by accessMiddleware, outside).
	s.tasks = server.NewTasks(0, func(ctx context.Context) string { return s.hostIdentity(ctx).String() }, nil)
	if err := s.tasks.Install(s.srv, ToolAsk); err != nil {
		panic(err) // the methods are registered once, on a new server
	}
	// access.go: every request is attributed to the host's
	// identity; the handlers ask the policy; calls are audited.
	s.srv.AddReceivingMiddleware(s.accessMiddleware)
	return s
}

// MCP returns the MCP server.
func (s *Server) MCP() *mcp.Server { return s.srv }

func (s *Server) listDevices(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, ListDevicesOut, error) {
	out := ListDevicesOut{Devices: []DeviceInfo{}}
	id := s.hostIdentity(ctx)
	if len(id.Roles) == 0 {
		return nil, out, rpcError(netproto.Errorf(netproto.CodeAccessDenied, "calling tool %s denied: %s has no role", ToolListDevices, id))
	}
	for _, d := range s.ctl.Fleet.Devices() {
		if !s.reaches(id, d) {
			continue // a device the host's roles do not reach is not shown
		}
		st, err := d.State()
		inv := d.Inventory()
		di := DeviceInfo{Name: d.Name(), State: st.String(), Dialect: inv.Dialect, Site: inv.Site, Role: inv.Role, Tags: inv.Tags, Tools: []string{}}
		if err != nil {
			di.Error = err.Error()
		}
		if nc, ok := d.Network(); ok && nc.CLIDialect != "" {
			di.Dialect = nc.CLIDialect
		}
		for _, t := range d.Tools() {
			di.Tools = append(di.Tools, t.Name)
		}
		if s.watch.streaming(d.Name()) {
			di.Stream = SourceOnChange
		}
		if s.cluster != nil {
			di.Replica, _ = s.cluster.Owner(d.Name())
		}
		out.Devices = append(out.Devices, di)
	}
	return nil, out, nil
}

func (s *Server) callDeviceTool(ctx context.Context, req *mcp.CallToolRequest, in callDeviceToolIn) (*mcp.CallToolResult, any, error) {
	d := s.ctl.Fleet.Device(in.Device)
	if d == nil {
		return nil, nil, fmt.Errorf("no device %q in the fleet (list_devices)", in.Device)
	}
	id := s.hostIdentity(ctx)
	if err := s.authorizeDeviceCall(id, d, in.Tool, in.Arguments); err != nil {
		return nil, nil, rpcError(err)
	}
	if err := s.useConsent(ctx, in.Arguments); err != nil { // cluster.go
		return nil, nil, rpcError(err)
	}
	if policy.IsWriteTool(in.Tool) {
		// The configuration may hold new secrets: learn it again before
		// the next masked answer.
		defer s.secrets.forget(d.Name())
	}
	if !s.maySeeSecrets(id, d) {
		res, err := s.callMasked(ctx, d, in.Tool, in.Arguments) // mask.go
		return res, nil, err
	}
	res, err := d.CallTool(ctx, in.Tool, in.Arguments) // ctx carries the correlation id (access.go)
	var te *client.ToolError
	if errors.As(err, &te) && res != nil {
		return res, nil, nil // the device's own error result, as it gave it
	}
	if err != nil {
		return nil, nil, err
	}
	return res, nil, nil
}

func (s *Server) ask(ctx context.Context, req *mcp.CallToolRequest, in askIn) (*mcp.CallToolResult, *controller.Report, error) {
	intent, err := controller.ParseIntent(in.Intent)
	if err != nil {
		return nil, nil, err
	}
	id := s.hostIdentity(ctx)
	if err := s.authorizeAsk(id, intent); err != nil {
		return nil, nil, rpcError(err)
	}
	ctl := *s.ctl
	ctl.Progress = &progressWriter{ctx: ctx, req: req}
	var scope []string
	hidden := 0
	if ctl.Fleet != nil {
		// The intent runs over the devices this host reaches, and only
		// those: a host limited to a site neither reads nor learns of the
		// others through a sweep or a path.
		ctl.Fleet = s.ctl.Fleet.View(func(d *client.Device) bool { return s.reaches(id, d) })
		for _, d := range ctl.Fleet.Devices() {
			scope = append(scope, d.Name())
		}
		hidden = len(s.ctl.Fleet.Devices()) - len(scope)
		if s.cluster != nil {
			// The devices other replicas hold are read through them; what
			// their sessions say of them (capabilities, tools) is learned
			// first, so that the intent runs as on a single controller.
			s.describeRemote(ctx, scope)
		}
	}
	rep, err := ctl.Ask(ctx, intent) // ctx carries the correlation id (access.go)
	if err != nil {
		return nil, nil, err
	}
	if hidden > 0 {
		if rep.Facts == nil {
			rep.Facts = map[string]any{}
		}
		rep.Facts["scope"] = scope
		rep.Diagnosis += fmt.Sprintf(" (Only the devices %s reaches were examined: %s; %d other device(s) of the fleet were not.)",
			id, strings.Join(scope, ", "), hidden)
	}
	s.limitRemediation(id, rep)
	if s.store.Dir != "" {
		_, _ = s.reports.Save(rep) // whole: each reader gets it masked for them (resources.go)
	}
	if rep, err = s.maskReport(ctx, id, rep, req.Params.Arguments); err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: reportText(rep)}}}, rep, nil
}

func reportText(r *controller.Report) string {
	var b strings.Builder
	r.WriteText(&b)
	return b.String()
}

// progressWriter sends each progress line as a progress notification
// (when the host asked for them with a progress token), or, when ask runs
// as a task, records it as the task's status message.
type progressWriter struct {
	ctx context.Context
	req *mcp.CallToolRequest
	mu  sync.Mutex
	n   float64
}

func (w *progressWriter) Write(p []byte) (int, error) {
	tok := w.req.Params.GetProgressToken()
	if tok == nil {
		// A task's progress is its status message.
		for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
			server.TaskProgress(w.ctx, line)
		}
		return len(p), nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		w.n++
		_ = w.req.Session.NotifyProgress(w.ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: w.n, Message: line})
	}
	return len(p), nil
}
