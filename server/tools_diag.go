package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
)

// Default concurrency limits of the diagnostic tools (Options.DiagLimiter nil).
const (
	DefaultDiagMax        = diag.DefaultMax       // diagnostics running at once on the server
	DefaultDiagPerSession = diag.DefaultPerCaller // diagnostics running at once in one MCP session
)

// DefaultPingCount is the troubleshooting draft's default ping count
// (section 3.2: "count": {"type": "integer", "default": 5}).
const DefaultPingCount = 5

// diagTool is one diagnostic tool: its MCP name and the diag tool it runs.
type diagTool struct {
	name, tool, title, description string
}

// diagTools are the troubleshooting draft's and MCP-Diag's diagnostic tools.
var diagTools = []diagTool{
	{netproto.ToolPing, "ping", "Ping a destination",
		"Execute ICMP echo probes from the device. Returns loss (percent) and rtt {min, avg, max} in ms, and the full parsed result. Each output line is sent as a notifications/message (logger \"ping\") while it runs, with progress when the request has a progressToken."},
	{netproto.ToolTraceroute, "traceroute", "Trace the path to a destination",
		"Run traceroute from the device (numeric, 3 probes per hop). Returns the parsed hops; lines stream as notifications/message while it runs."},
	{netproto.ToolTracepath, "tracepath", "Trace the path and its MTU",
		"Run tracepath from the device: hops and the path MTU. Returns the parsed result; lines stream as notifications/message while it runs."},
	{netproto.ToolDNSLookup, "dig", "Look up a DNS name",
		"Query DNS from the device with dig (record type queryType, default A; an address gives a reverse lookup). Returns the parsed queries under \"result\"."},
}

// addDiagTools registers ping, traceroute, tracepath and dns_lookup. A
// driver without device.Diagnoser lists them with _meta.available=false.
func (s *Server) addDiagTools() error {
	if s.opts.DiagLimiter == nil {
		s.opts.DiagLimiter = diag.NewLimiter(DefaultDiagMax, DefaultDiagPerSession)
	}
	noDiag := func() string {
		if s.diag == nil {
			return "the device runs no diagnostics through this driver"
		}
		return ""
	}
	for _, t := range diagTools {
		sch := diagSchemas()[t.name]
		if err := s.addTool(toolDef{name: t.name, title: t.title, description: t.description,
			input: sch[0], output: sch[1], missing: noDiag, run: s.runDiag(t)}); err != nil {
			return err
		}
	}
	return nil
}

// diagSchemas are the input and output schemas of each diagnostic tool, by
// name, made on first use.
var diagSchemas = sync.OnceValue(func() map[string][2]*jsonschema.Schema {
	m := map[string][2]*jsonschema.Schema{}
	for _, t := range diagTools {
		in, err := json.Marshal(DiagInputSchema(t.name))
		if err != nil {
			panic(fmt.Sprintf("server: input schema of %s: %v", t.name, err))
		}
		out, err := json.Marshal(DiagOutputSchema(t.name))
		if err != nil {
			panic(fmt.Sprintf("server: output schema of %s: %v", t.name, err))
		}
		m[t.name] = [2]*jsonschema.Schema{mustSchema(t.name, string(in)), mustSchema(t.name, string(out))}
	}
	return m
})

// diagFor returns the diag tool behind an MCP tool name ("dns_lookup" -> "dig").
func diagFor(name string) string {
	for _, t := range diagTools {
		if t.name == name {
			return t.tool
		}
	}
	return ""
}

// DiagInputSchema returns the inputSchema of a diagnostic tool (its draft
// name: "ping", "traceroute", "tracepath", "dns_lookup"): diag's schema,
// with ping's count defaulting to 5 as in the troubleshooting draft. It
// returns nil for another name.
func DiagInputSchema(name string) map[string]any {
	tool := diagFor(name)
	if tool == "" {
		return nil
	}
	sch := diag.InputSchema(tool)
	if tool == "ping" {
		props := maps.Clone(sch["properties"].(map[string]any))
		count := maps.Clone(props["count"].(map[string]any))
		count["default"] = DefaultPingCount
		count["description"] = fmt.Sprintf("number of probes (default %d)", DefaultPingCount)
		props["count"] = count
		sch["properties"] = props
	}
	return sch
}

// DiagOutputSchema returns the outputSchema of a diagnostic tool: for ping
// the draft's A.1 shape (loss, rtt) plus the parsed result under "result";
// for dns_lookup the parsed queries under "result"; for traceroute and
// tracepath the parsed result itself. It returns nil for another name.
func DiagOutputSchema(name string) map[string]any {
	tool := diagFor(name)
	if tool == "" {
		return nil
	}
	num := map[string]any{"type": []string{"number", "null"}}
	switch tool {
	case "ping":
		return map[string]any{"type": "object", "properties": map[string]any{
			"loss": map[string]any{"type": "number", "minimum": 0, "maximum": 100, "description": "packet loss, percent"},
			"rtt": map[string]any{"type": "object", "description": "round-trip times in ms (null when nothing answered)",
				"properties": map[string]any{"min": num, "avg": num, "max": num}, "required": []string{"min", "avg", "max"}},
			"result": diag.OutputSchema("ping"),
		}, "required": []string{"loss", "rtt", "result"}}
	case "dig":
		return map[string]any{"type": "object", "properties": map[string]any{
			"result": diag.OutputSchema("dig"),
		}, "required": []string{"result"}}
	}
	return diag.OutputSchema(tool)
}

// PingOutput is the structuredContent of ping: the troubleshooting draft's
// appendix A.1 result (loss, rtt) and the whole parsed run.
type PingOutput struct {
	// Loss is the packet loss in percent.
	Loss float64 `json:"loss"`
	// RTT holds the round-trip times in ms (null when nothing answered).
	RTT PingRTT `json:"rtt"`
	// Result is the parsed output (jc's ping schema, enriched).
	Result *diag.PingResult `json:"result"`
}

// PingRTT is the rtt object of appendix A.1.
type PingRTT struct {
	Min *float64 `json:"min"`
	Avg *float64 `json:"avg"`
	Max *float64 `json:"max"`
}

// DNSOutput is the structuredContent of dns_lookup.
type DNSOutput struct {
	// Result is dig's parsed output (jc's dig schema, enriched).
	Result diag.DigResult `json:"result"`
}

// runDiag returns the implementation of one diagnostic tool: validate,
// limit, run on the driver with every line streamed,
// parse and shape.
func (s *Server) runDiag(t diagTool) func(context.Context, *call) (any, error) {
	return func(ctx context.Context, c *call) (any, error) {
		var r diag.Request
		if err := c.bind(&r); err != nil {
			return nil, err
		}
		r.Tool = t.tool
		if err := r.Validate(); err != nil {
			return nil, invalidParams("%s refused, nothing was run: %s", t.name, strings.TrimPrefix(err.Error(), diag.ErrInvalidRequest.Error()+": "))
		}
		// The approval gate has already seen the call as read-only
		// (addTool: a policy asking for every tool stops it there).
		ss := c.req.Session
		release, err := s.opts.DiagLimiter.Acquire(s.owner(ss).Session)
		if err != nil {
			if errors.Is(err, diag.ErrBusy) {
				return nil, fmt.Errorf("%s refused: %v; wait for a running diagnostic to finish (or cancel it) and retry", t.name, err)
			}
			return nil, err
		}
		defer release()

		runCtx, cancel := context.WithTimeout(ctx, r.TimeLimit())
		defer cancel()
		st := newDiagStream(ctx, ss, c.req.Params.GetProgressToken(), t, &r)
		res, err := s.diag.Diagnose(runCtx, r, st.line)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, context.DeadlineExceeded) || runCtx.Err() != nil {
				return nil, netproto.Errorf(netproto.CodeTimeout, "%s to %s did not finish within %s; it was stopped", t.name, r.Destination, r.TimeLimit()).Retryable()
			}
			return nil, err
		}
		return diagOutput(t, res.Output, res.ExitCode)
	}
}

// diagOutput parses a run's text through diag's parsers (the same path for
// every driver) and shapes the tool's structuredContent. A failed run (an
// exit code that carries no result, or unparsable output) is a tool error
// quoting the output.
func diagOutput(t diagTool, output string, exitCode int) (any, error) {
	parsed, perr := diag.Parse(t.tool, output)
	if exitCode != 0 && !diag.ResultExit(t.tool, exitCode) || perr != nil {
		msg := strings.TrimSpace(output)
		if len(msg) > 600 {
			msg = msg[:600] + "..."
		}
		if msg == "" {
			msg = "(no output)"
		}
		if perr != nil && exitCode == 0 {
			return nil, fmt.Errorf("%s: cannot parse the output (%v): %s", t.name, perr, msg)
		}
		return nil, fmt.Errorf("%s failed with exit code %d: %s", t.name, exitCode, msg)
	}
	switch p := parsed.(type) {
	case *diag.PingResult:
		if p.PacketLossPercent == nil {
			return nil, fmt.Errorf("%s: the output has no statistics line: %s", t.name, strings.TrimSpace(output))
		}
		return PingOutput{Loss: *p.PacketLossPercent,
			RTT:    PingRTT{Min: p.RoundTripMsMin, Avg: p.RoundTripMsAvg, Max: p.RoundTripMsMax},
			Result: p}, nil
	case diag.DigResult:
		if p == nil {
			p = diag.DigResult{}
		}
		return DNSOutput{Result: p}, nil
	}
	return parsed, nil
}
