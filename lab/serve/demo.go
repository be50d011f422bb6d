package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/lazyre"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// The facts of the built-in lab the demo relies on (lab/sim/default.yaml).
const (
	demoDevice      = "r1"                      // the router of MCP-NET section 8
	demoInterface   = "TenGigE0/0/0/0"          // admin up, oper down (no cable)
	demoFaultLink   = "r1:GigabitEthernet0/0/0" // r1 — r2
	demoFarHost     = "10.3.0.10"               // h3, behind r3
	demoFarSource   = "10.255.0.1"              // r1's LoopBack0
	demoProtocol    = "2025-06-18"              // the version of MCP-NET 8.1
	demoSyslogURI   = "network:///log/syslog/last200"
	demoMaxRunbook  = 10 // prompts/get rounds before giving up
	demoWaitUpdates = 3 * time.Second
)

// demoEdit is the edit of MCP-NET 8.4, verbatim.
const demoEdit = `[{"path":"/openconfig-interfaces:interfaces/interface[name='Loopback100']",
 "value":{"config":{"name":"Loopback100","type":"iana-if-type:softwareLoopback"},
  "subinterfaces":{"subinterface":[{"index":0,"config":{"index":0,"ipv4":{"addresses":{"address":[
   {"ip":"100.100.100.100","config":{"ip":"100.100.100.100","prefix-length":32}}]}}}}]}}}]`

// DemoStep is what one step of Demo prints: text lines, or with
// DemoOptions.JSON one object.
type DemoStep struct {
	Step    int            `json:"step"`
	Section string         `json:"section,omitempty"`
	Title   string         `json:"title"`
	Facts   map[string]any `json:"facts,omitempty"`
	Output  []string       `json:"output,omitempty"`
	Skipped string         `json:"skipped,omitempty"`
	Error   string         `json:"error,omitempty"`
}

func (s *DemoStep) say(format string, args ...any) {
	s.Output = append(s.Output, strings.Split(fmt.Sprintf(format, args...), "\n")...)
}

func (s *DemoStep) fact(key string, v any) {
	if s.Facts == nil {
		s.Facts = map[string]any{}
	}
	s.Facts[key] = v
}

// DemoOptions configure Demo.
type DemoOptions struct {
	// Topology is the lab's; the demo expects the built-in lab's device
	// names.
	Topology topology.Topology
	// Out receives the steps.
	Out  io.Writer
	JSON bool // one JSON object per step
	// NoElicitation makes the client not advertise elicitation, so that
	// changes are approved with the refusal's single-use approvalToken.
	NoElicitation bool
	// Version is the version the servers and the demo's client announce.
	Version string
	// Logger receives the lab's log (nil: none).
	Logger *slog.Logger
}

// StartError is an error starting the lab a program runs on (Demo), as
// opposed to a failure of what runs on it.
type StartError struct{ Err error }

func (e *StartError) Error() string { return e.Err.Error() }

// Unwrap returns the error starting the lab.
func (e *StartError) Unwrap() error { return e.Err }

// demo is one run of `netmcp lab demo`.
type demo struct {
	out      io.Writer
	json     bool
	noElicit bool
	version  string
	lab      *Lab
	httpc    *http.Client
	cs       *mcp.ClientSession
	updates  chan *mcp.ResourceUpdatedNotificationParams

	mu       sync.Mutex
	cur      *DemoStep // the step running (the elicitation handler writes to it)
	elicited int
	failed   []string
}

// Demo walks through MCP-NET section 8 against a lab of o.Topology
// started in this process (as `netmcp lab up` does, on free 127.0.0.1
// ports), as an MCP client of r1 over Streamable HTTP: initialize, read
// an interface, the ping-failure runbook, an injected fault diagnosed, a
// YANG edit with a confirmed commit through the approval gate, a syslog
// subscription, and a graceful close. Then it stops the lab. An error
// starting the lab is a *StartError; a step that failed makes an error
// naming it, after every step has run.
func Demo(ctx context.Context, o DemoOptions) (err error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	d := &demo{out: o.Out, json: o.JSON, noElicit: o.NoElicitation, version: o.Version, updates: make(chan *mcp.ResourceUpdatedNotificationParams, 64)}
	d.lab, err = Up(ctx, Options{Topology: o.Topology, Logger: o.Logger, Version: o.Version})
	if err != nil {
		return &StartError{err}
	}
	d.httpc = d.lab.HTTPClient()
	defer func() {
		st := &DemoStep{Step: 8, Title: "Stop the lab"}
		d.httpc.CloseIdleConnections()
		if e := d.lab.Close(); e != nil {
			st.Error = e.Error()
			err = errors.Join(err, e)
		} else {
			st.say("HTTP servers shut down, %d routers closed, ports released", len(d.lab.Routers()))
		}
		d.print(st)
	}()
	steps := []struct {
		section, title string
		run            func(context.Context, *DemoStep) error
	}{
		{"8.1", "Connect to " + demoDevice + " and initialize", d.connect},
		{"8.2", "Read network:///interface/" + demoInterface, d.readInterface},
		{"8.3", "Prompt network.troubleshoot.ping-fail", d.pingFail},
		{"", "Inject a fault through the lab API and diagnose it", d.diagnoseFault},
		{"8.4", "YANG edit and confirmed commit through the approval gate", d.editCommit},
		{"8.5", "Subscribe to " + demoSyslogURI, d.syslog},
		{"8.6", "Unsubscribe and close", d.shutdown},
	}
	for i, s := range steps {
		st := &DemoStep{Step: i + 1, Section: s.section, Title: s.title}
		d.mu.Lock()
		d.cur = st
		d.mu.Unlock()
		if e := s.run(ctx, st); e != nil {
			st.Error = e.Error()
			d.failed = append(d.failed, fmt.Sprintf("step %d (%s): %v", st.Step, s.title, e))
		}
		d.print(st)
		if d.cs == nil && st.Step == 1 {
			break // nothing else can run without a session
		}
	}
	if d.cs != nil {
		_ = d.cs.Close()
	}
	if len(d.failed) > 0 {
		return fmt.Errorf("demo failed: %s", strings.Join(d.failed, "; "))
	}
	return nil
}

// print writes a step as text or as one JSON object.
func (d *demo) print(st *DemoStep) {
	if d.json {
		b, _ := json.Marshal(st)
		fmt.Fprintln(d.out, string(b))
		return
	}
	head := fmt.Sprintf("Step %d", st.Step)
	if st.Section != "" {
		head += " (MCP-NET " + st.Section + ")"
	}
	fmt.Fprintf(d.out, "== %s: %s\n", head, st.Title)
	for _, l := range st.Output {
		fmt.Fprintln(d.out, "   "+l)
	}
	if st.Skipped != "" {
		fmt.Fprintln(d.out, "   SKIPPED: "+st.Skipped)
	}
	if st.Error != "" {
		fmt.Fprintln(d.out, "   ERROR: "+st.Error)
	}
	fmt.Fprintln(d.out)
}

// connect is MCP-NET 8.1: initialize with r1, read the network capability.
func (d *demo) connect(ctx context.Context, st *DemoStep) error {
	url := d.lab.URL(demoDevice)
	if url == "" {
		return fmt.Errorf("the topology has no router %q", demoDevice)
	}
	st.say("lab up: %d routers served over Streamable HTTP", len(d.lab.Devices()))
	for _, name := range d.lab.Routers() {
		st.say("  %s  %s", name, d.lab.URL(name))
	}
	opts := &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { d.updates <- r.Params },
	}
	if !d.noElicit {
		opts.ElicitationHandler = d.elicit
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "netmcp-lab-demo", Version: d.version}, opts)
	if err := mcp.AddSendingCustomMethod[*server.CloseParams, *server.CloseResult](client, "close"); err != nil {
		return err
	}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: d.httpc, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: demoProtocol})
	if err != nil {
		return fmt.Errorf("connect %s: %w", url, err)
	}
	d.cs = cs
	init := cs.InitializeResult()
	st.say("protocolVersion %s, server %s %s", init.ProtocolVersion, init.ServerInfo.Name, init.ServerInfo.Version)
	st.fact("protocolVersion", init.ProtocolVersion)
	capObj := init.Capabilities.Extensions[netproto.ExtensionID]
	if capObj == nil {
		return fmt.Errorf("initialize result has no capabilities.extensions[%q] (the network capability)", netproto.ExtensionID)
	}
	b, _ := json.MarshalIndent(capObj, "   ", "  ")
	st.say("capabilities.network (read from extensions[%q]):\n%s", netproto.ExtensionID, b)
	st.fact("network", capObj)
	return nil
}

// readInterface is MCP-NET 8.2: resources/read of an interface.
func (d *demo) readInterface(ctx context.Context, st *DemoStep) error {
	uri := netproto.URIInterfacePrefix + demoInterface
	res, err := d.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return err
	}
	if len(res.Contents) == 0 {
		return fmt.Errorf("resources/read %s returned no contents", uri)
	}
	c := res.Contents[0]
	var v any
	if err := json.Unmarshal([]byte(c.Text), &v); err != nil {
		return fmt.Errorf("%s: contents are not JSON (%s): %w", uri, c.MIMEType, err)
	}
	state, _ := dig(v, "openconfig-interfaces:interface", "state").(map[string]any)
	st.say("%s (%s)", c.URI, c.MIMEType)
	st.say("admin-status %v, oper-status %v", state["admin-status"], state["oper-status"])
	st.fact("admin-status", state["admin-status"])
	st.fact("oper-status", state["oper-status"])
	return nil
}

// pingFail is MCP-NET 8.3: the runbook of the draft, from the mgmt loopback to h1.
func (d *demo) pingFail(ctx context.Context, st *DemoStep) error {
	return d.runbook(ctx, st, map[string]string{"src": "192.168.1.1", "dst": "10.0.0.5", "vrf": "mgmt"})
}

// diagnoseFault takes the r1—r2 link down through the lab and runs the
// runbook from r1 toward h3; the root cause must be that link.
func (d *demo) diagnoseFault(ctx context.Context, st *DemoStep) error {
	f := topology.Fault{Kind: topology.FaultLinkDown, Link: demoFaultLink}
	if err := d.lab.Sim().InjectFault(f); err != nil {
		return err
	}
	st.say("lab: injected fault %s on the link of %s", f.Kind, f.Link)
	st.fact("fault", f)
	if err := d.runbook(ctx, st, map[string]string{"src": demoFarSource, "dst": demoFarHost}); err != nil {
		return err
	}
	cause := fmt.Sprint(st.Facts["rootCause"])
	_, ifn, _ := strings.Cut(demoFaultLink, ":")
	ok := namesInterface(cause, ifn)
	st.fact("rootCauseNamesFault", ok)
	if ok {
		st.say("root cause names the injected fault: %s", ifn)
	} else {
		st.say("MISMATCH: the root cause does not name the injected fault (link down on %s)", demoFaultLink)
	}
	return nil
}

// namesInterface reports whether text names interface ifn (not merely a
// longer name it prefixes, e.g. Gi0/0/0 in Gi0/0/0/1).
func namesInterface(text, ifn string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], ifn)
		if j < 0 {
			return false
		}
		end := i + j + len(ifn)
		if end == len(text) || !strings.ContainsRune("/0123456789.", rune(text[end])) {
			return true
		}
		i = end
	}
}

// runbook gets the ping-fail prompt, executes each _meta.toolCalls entry
// with tools/call and feeds the results back until the diagnosis is complete.
func (d *demo) runbook(ctx context.Context, st *DemoStep, args map[string]string) error {
	st.say("prompts/get %s %s", netproto.PromptPingFail, mustJSON(args))
	for round := 1; round <= demoMaxRunbook; round++ {
		res, err := d.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: netproto.PromptPingFail, Arguments: args})
		if err != nil {
			return err
		}
		if done, _ := res.Meta["diagnosisComplete"].(bool); done {
			st.say("diagnosis:\n%s", promptText(res))
			st.fact("rootCause", res.Meta["rootCause"])
			if !strings.Contains(promptText(res), "Diagnosis complete") {
				return errors.New(`the final prompt result does not say "Diagnosis complete"`)
			}
			return nil
		}
		var calls []struct {
			Tool      string         `json:"tool"`
			Arguments map[string]any `json:"arguments"`
		}
		if err := remarshal(res.Meta["toolCalls"], &calls); err != nil || len(calls) == 0 {
			return fmt.Errorf("round %d: _meta.toolCalls missing or malformed (%v) and the diagnosis is not complete", round, err)
		}
		var results []any
		for _, c := range calls {
			r, err := d.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Arguments})
			if err != nil {
				return fmt.Errorf("tools/call %s: %w", c.Tool, err)
			}
			st.say("-> tools/call %s %s\n   %s", c.Tool, mustJSON(c.Arguments), summarize(r))
			results = append(results, r.StructuredContent)
		}
		args = map[string]string{"previousContextId": fmt.Sprint(res.Meta["contextId"]), "results": mustJSON(results)}
	}
	return fmt.Errorf("no diagnosis after %d rounds", demoMaxRunbook)
}

// editCommit is MCP-NET 8.4: the draft's edit, a confirmed commit, confirm.
func (d *demo) editCommit(ctx context.Context, st *DemoStep) error {
	var edit []any
	if err := json.Unmarshal([]byte(demoEdit), &edit); err != nil {
		return err
	}
	res, err := d.approvedCall(ctx, st, netproto.ToolYangEdit, map[string]any{"target": "candidate", "edit": edit})
	if err != nil {
		return err
	}
	var ed struct {
		CommitID string `json:"commit-id"`
		Diff     string `json:"diff"`
	}
	_ = remarshal(res.StructuredContent, &ed)
	st.say("network.yang.edit: commit-id %s; candidate diff:\n%s", ed.CommitID, indent(ed.Diff))
	st.fact("diff", ed.Diff)
	for _, args := range []map[string]any{{"confirmed": 120}, {"confirm": true}} {
		res, err := d.approvedCall(ctx, st, netproto.ToolCommit, args)
		if err != nil {
			return err
		}
		var c struct {
			Status          string `json:"status"`
			RollbackTimeout int    `json:"rollbackTimeout"`
		}
		_ = remarshal(res.StructuredContent, &c)
		st.say("network.commit %s: status %s", mustJSON(args), c.Status)
		st.fact(fmt.Sprintf("status:%v", mustJSON(args)), c.Status)
	}
	return nil
}

// approvalTokenRe finds the single-use token a gate refusal carries, in an
// error's message or data or in a tool error's content.
var approvalTokenRe = lazyre.New(`"?approvalToken"?\s*[:=]\s*"([^"]+)"`)

// approvedCall calls a state-changing tool as a well-behaved client: the
// elicitation handler answers an operator prompt; a refusal carrying an
// approvalToken is repeated once with the token; a call that passes without
// either is reported, never silently.
func (d *demo) approvedCall(ctx context.Context, st *DemoStep, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	d.mu.Lock()
	before := d.elicited
	d.mu.Unlock()
	res, err := d.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if tok := approvalToken(res, err); tok != "" {
		first, _, _ := strings.Cut(toolText(res), "\n")
		st.say("<- %s\n   the operator approves: repeating the identical call with its approvalToken", first)
		n, _ := st.Facts["approvalTokens"].(int)
		st.fact("approvalTokens", n+1)
		with := map[string]any{"approvalToken": tok}
		for k, v := range args {
			with[k] = v
		}
		res, err = d.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: with})
	} else {
		d.mu.Lock()
		asked := d.elicited > before
		d.mu.Unlock()
		if err == nil && !res.IsError && !asked {
			st.say("NOTE: the server applied %s without asking for approval (its gate let the call through)", tool)
			st.fact("unapproved:"+tool, true)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("tools/call %s: %w", tool, err)
	}
	if res.IsError {
		return nil, fmt.Errorf("tools/call %s: %s", tool, toolText(res))
	}
	return res, nil
}

// approvalToken returns the approvalToken of a gate refusal, or "".
func approvalToken(res *mcp.CallToolResult, err error) string {
	var text string
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		text = je.Message + string(je.Data)
	case err != nil:
		text = err.Error()
	case res != nil && res.IsError:
		text = toolText(res) + mustJSON(res.StructuredContent)
	}
	if m := approvalTokenRe.Re().FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// elicit answers elicitation/create as the operator: it shows the message
// and accepts.
func (d *demo) elicit(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.elicited++
	if d.cur != nil {
		d.cur.say("elicitation/create shown to the operator:\n%s\n(operator accepts: approve=true)", indent(elide(req.Params.Message, 10, 3)))
		d.cur.fact("elicitations", d.elicited)
	}
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
}

// syslog is MCP-NET 8.5: subscribe to the syslog resource, clear the
// injected fault through the lab (r1—r2 comes back up, which the routers
// log) and print the notifications/resources/updated received.
func (d *demo) syslog(ctx context.Context, st *DemoStep) error {
	if err := d.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: demoSyslogURI}); err != nil {
		return err
	}
	st.say("resources/subscribe %s: ok", demoSyslogURI)
	// Drop updates that a 8.4 commit may have queued before subscribing.
	for len(d.updates) > 0 {
		<-d.updates
	}
	d.lab.ClearFaults()
	st.say("lab: cleared the injected faults (link %s back up)", demoFaultLink)
	n := 0
	deadline := time.After(demoWaitUpdates)
	for {
		select {
		case p := <-d.updates:
			n++
			st.say("<- notifications/resources/updated %s %s", p.URI, strings.TrimSpace(fmt.Sprint(p.Meta["text"])))
			st.fact("updated", n)
		case <-deadline:
			if n == 0 {
				return fmt.Errorf("no notifications/resources/updated for %s within %s", demoSyslogURI, demoWaitUpdates)
			}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
		if n > 0 && len(d.updates) == 0 {
			// Give the other router's lines a moment, then stop.
			deadline = time.After(200 * time.Millisecond)
		}
	}
}

// shutdown is MCP-NET 8.6: unsubscribe, the custom close method, close.
func (d *demo) shutdown(ctx context.Context, st *DemoStep) error {
	if err := d.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: demoSyslogURI}); err != nil {
		return err
	}
	st.say("resources/unsubscribe %s: ok", demoSyslogURI)
	if _, err := mcp.CallCustomMethod[*server.CloseParams, *server.CloseResult](ctx, d.cs, "close", &server.CloseParams{}); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	st.say("close: ok (custom method, sent with mcp.CallCustomMethod)")
	st.fact("close", "ok")
	err := d.cs.Close()
	d.cs = nil
	if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fmt.Errorf("closing the session: %w", err)
	}
	st.say("session closed")
	return nil
}

// promptText joins the text messages of a prompt result.
func promptText(res *mcp.GetPromptResult) string {
	var parts []string
	for _, m := range res.Messages {
		if t, ok := m.Content.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// toolText joins the text content of a tool result.
func toolText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// summarize renders a tool result on one short line.
func summarize(r *mcp.CallToolResult) string {
	s := toolText(r)
	if r.IsError {
		s = "tool error: " + s
	}
	s = strings.ReplaceAll(s, "\n", " | ")
	if s == "" {
		s = "(no output)"
	}
	const max = 120
	if len(s) > max {
		s = fmt.Sprintf("%s … (%d bytes)", s[:max], len(s))
	}
	return s
}

// elide keeps the first head and last tail lines of a long text.
func elide(s string, head, tail int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= head+tail+1 {
		return s
	}
	kept := append(lines[:head:head], fmt.Sprintf("… (%d lines omitted)", len(lines)-head-tail))
	return strings.Join(append(kept, lines[len(lines)-tail:]...), "\n")
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func remarshal(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}

// dig walks nested JSON objects.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}
