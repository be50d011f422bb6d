package server

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
)

// argSchema is a prompt argument with the JSON Schema keywords of
// MCP-NET 6.3, as served by prompts/list.
type argSchema struct {
	Name        string     `json:"name,omitempty"`
	Description string     `json:"description,omitempty"`
	Required    bool       `json:"required,omitempty"`
	Type        string     `json:"type,omitempty"`
	Minimum     *float64   `json:"minimum,omitempty"`
	Maximum     *float64   `json:"maximum,omitempty"`
	Pattern     string     `json:"pattern,omitempty"`
	Enum        []string   `json:"enum,omitempty"`
	Items       *argSchema `json:"items,omitempty"`
	// pattern is Pattern compiled once, when the prompt is added.
	pattern *regexp.Regexp
}

// promptDef is one prompt with its argument schemas and handler.
type promptDef struct {
	name, title, description string
	args                     []argSchema
	get                      func(ctx context.Context, req *mcp.GetPromptRequest, args map[string]string) (*mcp.GetPromptResult, error)
}

func f64(v float64) *float64 { return &v }

// vlanNamePattern is the pattern of network.config.add-vlan's name.
const vlanNamePattern = `^[A-Za-z0-9-_]+$`

func (s *Server) addPrompts() {
	s.promptSchemas = map[string][]argSchema{}
	defs := []promptDef{
		{name: netproto.PromptPingFail, title: "Ping failure diagnosis",
			description: "Step-by-step ping failure diagnosis",
			args: []argSchema{
				{Name: "src", Description: "source address of the failing ping", Required: true, Type: "string"},
				{Name: "dst", Description: "destination address", Required: true, Type: "string"},
				{Name: "vrf", Description: "VRF (routing instance)", Type: "string"},
				{Name: "previousContextId", Description: "contextId of the previous step, to continue the diagnosis", Type: "string"},
				{Name: "results", Description: "JSON array: the results of the previous step's toolCalls, in order (structuredContent or text)", Type: "string"},
			},
			get: s.pingFailPrompt},
		{name: netproto.PromptBGPDown, title: "BGP session down diagnosis",
			description: "Step-by-step diagnosis of a BGP session that is not Established", args: bgpDownArgs, get: s.bgpDownPrompt},
		{name: netproto.PromptAddVLAN, title: "Add a VLAN",
			description: "Interactive VLAN creation wizard",
			args: []argSchema{
				{Name: "vlan_id", Description: "IEEE 802.1Q VLAN ID", Required: true, Type: "integer", Minimum: f64(1), Maximum: f64(4094)},
				{Name: "name", Description: "VLAN name (no spaces)", Required: true, Type: "string", Pattern: vlanNamePattern},
				{Name: "ports", Description: "List of interface names to add to VLAN", Type: "array", Items: &argSchema{Type: "string"}},
			},
			get: s.addVLANPrompt},
		{name: netproto.PromptSecAudit, title: "Security audit",
			description: "Generate and run security compliance checks",
			args: []argSchema{
				{Name: "profile", Description: "basic or detailed", Required: true, Type: "string", Enum: []string{"basic", "detailed"}},
			},
			get: s.auditPrompt},
	}
	for _, d := range defs {
		p := &mcp.Prompt{Name: d.name, Title: d.title, Description: d.description,
			Meta: mcp.Meta{"mimeType": netproto.MIMEMarkdown}}
		for _, a := range d.args {
			p.Arguments = append(p.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		for i := range d.args {
			if d.args[i].Pattern != "" {
				d.args[i].pattern = regexp.MustCompile(d.args[i].Pattern)
			}
		}
		s.promptSchemas[d.name] = d.args
		s.mcp.AddPrompt(p, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			args := req.Params.Arguments
			if args == nil {
				args = map[string]string{}
			}
			if err := checkPromptArgs(d.name, d.args, args); err != nil {
				return nil, err
			}
			res, err := d.get(ctx, req, args)
			return res, rpc(err)
		})
	}
}

// checkPromptArgs validates prompt arguments (all strings on the wire)
// against their schemas.
func checkPromptArgs(prompt string, schemas []argSchema, args map[string]string) error {
	known := map[string]argSchema{}
	for _, a := range schemas {
		known[a.Name] = a
		_, cont := args["previousContextId"] // a follow-up step carries only its context
		if _, ok := args[a.Name]; a.Required && !ok && !cont {
			return invalidParams("%s: missing required argument %q", prompt, a.Name)
		}
	}
	for k, v := range args {
		a, ok := known[k]
		if !ok {
			return invalidParams("%s: unknown argument %q", prompt, k)
		}
		switch {
		case a.Type == "integer":
			if _, err := strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return invalidParams("%s: argument %q must be an integer, got %q", prompt, k, v)
			}
		case a.pattern != nil && !a.pattern.MatchString(v):
			return invalidParams("%s: argument %q must match %s, got %q", prompt, k, a.Pattern, v)
		case len(a.Enum) > 0 && !slices.Contains(a.Enum, v):
			return invalidParams("%s: argument %q must be one of %v, got %q", prompt, k, a.Enum, v)
		}
	}
	return nil
}

// toolCall is one step of a prompt that the client should execute.
type toolCall struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	// RequiresConfirmation marks a step the client must not run without
	// the user's explicit approval (MCP-NET 6.4).
	RequiresConfirmation bool `json:"requiresConfirmation,omitempty"`
}

// inline renders a tool call as the draft's markdown does:
// `network.cli.exec {"cmd":"..."}`.
func (s *Server) inline(c toolCall) string {
	b, _ := json.Marshal(c.Arguments)
	return fmt.Sprintf("`%s %s`", c.Tool, b)
}

// call makes a toolCall with the served tool name.
func (s *Server) call(tool string, args map[string]any) toolCall {
	return toolCall{Tool: s.toolName(tool), Arguments: args}
}

func promptResult(desc, markdown string, meta mcp.Meta) *mcp.GetPromptResult {
	return &mcp.GetPromptResult{
		Description: desc,
		Messages:    []*mcp.PromptMessage{{Role: "assistant", Content: &mcp.TextContent{Text: markdown}}},
		Meta:        meta,
	}
}
