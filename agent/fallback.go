package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/d2d/report"
)

// ControllerToolAsk is the controller's tool an agent falls back to
// (serve.ToolAsk of `netmcp controller serve`).
const ControllerToolAsk = "ask"

// ControllerFallback reaches the controller's MCP endpoint (`netmcp
// controller serve --listen`, Streamable HTTP at /mcp) when a run could
// not trust every device of its path: the agent calls the controller's ask
// tool with the same intent and carries its report, signed, in its own.
type ControllerFallback struct {
	// Endpoint is the controller's MCP URL, e.g. http://ctl:8080/mcp.
	Endpoint string
	// HTTPClient carries the calls (TLS to the controller); nil is
	// http.DefaultClient.
	HTTPClient *http.Client
}

// Ask runs intent on the controller and returns its report.
func (c *ControllerFallback) Ask(ctx context.Context, intent string) (json.RawMessage, error) {
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "netmcp-agent-fallback", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: c.Endpoint, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		return nil, fmt.Errorf("controller %s: %w", c.Endpoint, err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ControllerToolAsk, Arguments: map[string]any{"intent": intent}})
	if err != nil {
		return nil, fmt.Errorf("controller %s: %w", c.Endpoint, err)
	}
	if res.IsError {
		var sb strings.Builder
		for _, ct := range res.Content {
			if t, ok := ct.(*mcp.TextContent); ok {
				sb.WriteString(t.Text)
			}
		}
		return nil, fmt.Errorf("controller %s refused: %s", c.Endpoint, sb.String())
	}
	if res.StructuredContent == nil {
		return nil, errors.New("controller " + c.Endpoint + ": no structured report")
	}
	return json.Marshal(res.StructuredContent)
}

// fallBack asks the controller, when the agent has one, for the run whose
// path devices in untrusted could not be trusted.
func (a *Agent) fallBack(ctx context.Context, intent string, untrusted map[string]string) *report.Fallback {
	if a.cfg.Controller == nil || len(untrusted) == 0 {
		return nil
	}
	var names []string
	for n := range untrusted {
		names = append(names, n)
	}
	sort.Strings(names)
	fb := &report.Fallback{Controller: a.cfg.Controller.Endpoint, Reason: "untrusted on the path: " + strings.Join(names, ", ")}
	cctx, cancel := context.WithTimeout(ctx, a.cfg.CallTimeout*3)
	defer cancel()
	raw, err := a.cfg.Controller.Ask(cctx, intent)
	if err != nil {
		fb.Error = err.Error()
		a.log.Warn("controller fallback failed", "controller", fb.Controller, "err", err)
	} else {
		fb.Report = raw
	}
	return fb
}
