package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
	"github.com/netmcp/netmcp/netproto"
)

// Write is a device tool call the model asks for that may change the
// device: it runs only if the operator consents (ConsentFunc).
type Write struct {
	Device    string         `json:"device"`
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// ConsentFunc asks the operator whether a write the model asks for may
// run; it returns the answer and, when refused, why. A nil function
// refuses every write.
type ConsentFunc func(ctx context.Context, w Write) (ok bool, why string)

// Outcomes of a Call.
const (
	CallOK      = "ok"      // executed; the tool answered
	CallError   = "error"   // executed; the tool or the device answered an error
	CallInvalid = "invalid" // not executed: malformed, unknown tool or device
	CallRefused = "refused" // not executed: a write without the operator's consent
)

// Call is one tool call the model asked for and what the controller
// did with it. Only "ok" and "error" calls reached the controller's tools.
type Call struct {
	Turn       int    `json:"turn"`
	ID         string `json:"id"`
	Tool       string `json:"tool"`
	Device     string `json:"device,omitempty"`
	DeviceTool string `json:"device_tool,omitempty"`
	Arguments  string `json:"arguments"`
	Outcome    string `json:"outcome"`
	Error      string `json:"error,omitempty"`
	Result     string `json:"result,omitempty"`
	ElapsedMS  int64  `json:"elapsed_ms"`
}

// llmWriteTools are tools treated as writes whatever their annotations say.
var llmWriteTools = []string{
	netproto.ToolCLIConfigure, netproto.ToolYangEdit, netproto.ToolCommit,
	netproto.ToolRollback, netproto.ToolFilePush, netproto.ToolClearCounters,
}

// llmTools runs the model's tool calls through the controller's own MCP
// server (an in-memory session to Server: list_devices, call_device_tool,
// ask), after checking each against the fleet and the write policy. A
// call that fails a check is answered with an error and never executed.
type llmTools struct {
	cs        *mcp.ClientSession
	fleet     *client.Fleet
	tools     []*mcp.Tool
	consent   ConsentFunc
	corr      string
	redact    func(string) string
	maxResult int
}

// defs describes the controller's tools as function tools.
func (t *llmTools) defs() ([]chatTool, error) {
	var out []chatTool
	for _, tl := range t.tools {
		params, err := json.Marshal(tl.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("llm: schema of %s: %w", tl.Name, err)
		}
		out = append(out, chatTool{Type: "function", Function: chatFunction{Name: tl.Name, Description: tl.Description, Parameters: params}})
	}
	return out, nil
}

func (t *llmTools) names() []string {
	var n []string
	for _, tl := range t.tools {
		n = append(n, tl.Name)
	}
	return n
}

// exec checks and runs one call; it returns the record and the text the
// model is given back.
func (t *llmTools) exec(ctx context.Context, turn int, tc chatToolCall) (Call, string) {
	start := time.Now()
	raw := t.redact(tc.argumentsText())
	c := Call{Turn: turn, ID: tc.ID, Tool: t.redact(tc.Function.Name), Arguments: llmClip(raw, 2000)}
	args, err := t.check(ctx, &c, raw)
	if err != nil {
		c.Error = t.redact(err.Error())
		if c.Outcome == "" {
			c.Outcome = CallInvalid
		}
		c.ElapsedMS = time.Since(start).Milliseconds()
		return c, "error: " + c.Error
	}
	res, err := t.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: args, Meta: mcp.Meta{netproto.MetaCorrelationID: t.corr, "progressToken": "llm-" + c.ID}})
	c.ElapsedMS = time.Since(start).Milliseconds()
	if err != nil {
		c.Outcome, c.Error = CallError, t.redact(err.Error())
		return c, "error: " + c.Error
	}
	text := t.redact(llmResultContent(res))
	if res.IsError {
		c.Outcome, c.Error = CallError, llmClip(text, 500)
		return c, "error: " + llmClip(text, t.maxResult)
	}
	c.Outcome, c.Result = CallOK, llmClip(text, 300)
	return c, llmClip(text, t.maxResult)
}

// check validates a call against the tools, the fleet and the policy and
// returns its arguments. It fills c's device fields; a write refused sets
// c.Outcome to refused.
func (t *llmTools) check(ctx context.Context, c *Call, raw string) (map[string]any, error) {
	if !slices.Contains(t.names(), c.Tool) {
		return nil, fmt.Errorf("unknown tool %q: the tools are %s", c.Tool, strings.Join(t.names(), ", "))
	}
	args := map[string]any{}
	if strings.TrimSpace(raw) != "" {
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil || args == nil {
			return nil, fmt.Errorf("arguments of %s are not a JSON object: %s", c.Tool, llmJSONProblem(raw, err))
		}
		if dec.More() {
			return nil, fmt.Errorf("arguments of %s: trailing data after the JSON object", c.Tool)
		}
	}
	switch c.Tool {
	case serve.ToolAsk:
		s, ok := args["intent"].(string)
		if !ok || strings.TrimSpace(s) == "" {
			return nil, errors.New(`ask needs {"intent": "..."}: an intent in words or as a JSON object in a string`)
		}
		if _, err := controller.ParseIntent(s); err != nil {
			return nil, fmt.Errorf("ask: %w", err)
		}
	case serve.ToolCallDeviceTool:
		return t.checkDeviceCall(ctx, c, args)
	}
	return args, nil
}

// checkDeviceCall validates call_device_tool: a known, connected device;
// a tool it has; arguments an object; a write only with consent.
func (t *llmTools) checkDeviceCall(ctx context.Context, c *Call, args map[string]any) (map[string]any, error) {
	for k := range args {
		if k != "device" && k != "tool" && k != "arguments" {
			return nil, fmt.Errorf("call_device_tool: unknown field %q (want device, tool, arguments)", k)
		}
	}
	dev, _ := args["device"].(string)
	tool, _ := args["tool"].(string)
	c.Device, c.DeviceTool = dev, tool
	if dev == "" || tool == "" {
		return nil, errors.New(`call_device_tool needs {"device": NAME, "tool": NAME, "arguments": {...}}`)
	}
	d := t.fleet.Device(dev)
	if d == nil {
		var names []string
		for _, x := range t.fleet.Devices() {
			names = append(names, x.Name())
		}
		return nil, fmt.Errorf("no device %q in the fleet (the devices are %s)", dev, strings.Join(names, ", "))
	}
	var def *mcp.Tool
	for _, tl := range d.Tools() {
		if tl.Name == tool {
			def = tl
		}
	}
	if def == nil {
		if st, err := d.State(); st != client.StateConnected {
			return nil, fmt.Errorf("device %s is %s (%v): its tools are not known", dev, st, err)
		}
		return nil, fmt.Errorf("device %s has no tool %q (list_devices lists its tools)", dev, tool)
	}
	var targs map[string]any
	switch a := args["arguments"].(type) {
	case nil:
	case map[string]any:
		targs = a
	case string: // some models send the object as JSON text
		dec := json.NewDecoder(strings.NewReader(a))
		dec.UseNumber()
		if err := dec.Decode(&targs); err != nil || targs == nil {
			return nil, fmt.Errorf("call_device_tool: arguments for %s are not a JSON object: %s", tool, llmJSONProblem(a, err))
		}
	default:
		return nil, fmt.Errorf("call_device_tool: arguments for %s must be a JSON object, not %T", tool, a)
	}
	if llmIsWriteTool(def) {
		why := "no operator to ask"
		ok := false
		if t.consent != nil {
			ok, why = t.consent(ctx, Write{Device: dev, Tool: tool, Arguments: targs})
		}
		if !ok {
			c.Outcome = CallRefused
			return nil, fmt.Errorf("refused: %s on %s changes the device and the operator did not consent (%s); use read tools or propose the change in your answer", tool, dev, why)
		}
	}
	out := map[string]any{"device": dev, "tool": tool}
	if targs != nil {
		out["arguments"] = targs
	}
	return out, nil
}

// llmIsWriteTool reports whether a device tool may change the device: a
// known write tool, or one not annotated read-only.
func llmIsWriteTool(t *mcp.Tool) bool {
	if slices.Contains(llmWriteTools, t.Name) || slices.Contains(llmWriteTools, strings.ReplaceAll(t.Name, "_", ".")) {
		return true
	}
	return t.Annotations == nil || !t.Annotations.ReadOnlyHint
}

// llmJSONProblem says what is wrong with a JSON text.
func llmJSONProblem(raw string, err error) string {
	if err == nil {
		return "got " + llmClip(strings.TrimSpace(raw), 60)
	}
	return err.Error()
}

// llmResultContent is the text the model is given for a tool result: its
// text contents, else its structured content as JSON.
func llmResultContent(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, "\n")
	}
	if r.StructuredContent != nil {
		var b bytes.Buffer
		if err := json.NewEncoder(&b).Encode(r.StructuredContent); err == nil {
			return strings.TrimSpace(b.String())
		}
	}
	return "(empty result)"
}
