package server

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
)

// toolDef is one tool: its schemas, whether it changes state, why it may be
// unavailable, and its implementation.
type toolDef struct {
	name        string // the draft's name
	title       string
	description string
	input       *jsonschema.Schema // the arguments; shared, never modified
	output      *jsonschema.Schema // structuredContent; shared, never modified
	write       bool               // changes device state: ReadOnly and the Approver apply
	// missing returns why the device cannot serve the tool, or "".
	missing func() string
	// missingCode is the error code of a call when missing says why the
	// tool is unavailable (default -32084 Network.ConfigIncompatible).
	missingCode int
	// run executes a call whose arguments were validated (defaults applied).
	run func(ctx context.Context, c *call) (any, error)
}

// call is one tools/call being served.
type call struct {
	req  *mcp.CallToolRequest
	args json.RawMessage // validated, defaults applied
	tool string          // the draft's name
	// detached: the call runs as a task, after its request (and the
	// per-request session of a 2026-07-28 call over HTTP) ended; wasStateless
	// tells what the session was when the task started.
	detached, wasStateless bool
}

// bind unmarshals the arguments into v.
func (c *call) bind(v any) error {
	if err := json.Unmarshal(c.args, v); err != nil {
		return invalidParams("%s arguments: %v", c.tool, err)
	}
	return nil
}

// textResult is implemented by outputs that have a better text fallback
// than their JSON (network.cli.exec: the command's output itself).
type textResult interface{ Text() string }

// mustSchema decodes the JSON Schema src of name; it panics on an error.
func mustSchema(name, src string) *jsonschema.Schema {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		panic(fmt.Sprintf("schema of %s: %v", name, err))
	}
	return &s
}

// compiledSchemas are the schemas of a tool as served and its resolved
// input schema, shared by every Server of the process (a lab serves
// hundreds of devices, each its own Server with the same tools):
// resolving them costs about 10 ms of CPU per Server. Schemas are never
// modified once compiled.
type compiledSchemas struct {
	in, out  *jsonschema.Schema
	resolved *jsonschema.Resolved
}

// schemaKey identifies a tool's schemas (made once per process) and their
// approval form.
type schemaKey struct {
	in, out  *jsonschema.Schema
	approval bool
}

// schemaCache maps a schemaKey to its compiledSchemas.
var schemaCache sync.Map

// compileSchemas returns d's schemas, with the approval arguments and
// result when approval applies, compiled once per process.
func compileSchemas(d toolDef, approval bool) (*compiledSchemas, error) {
	key := schemaKey{d.input, d.output, approval}
	if c, ok := schemaCache.Load(key); ok {
		return c.(*compiledSchemas), nil
	}
	in, out := d.input, d.output
	if approval {
		in = in.CloneSchemas()
		addEvidenceArgs(in)
		out = withApprovalOutput(out)
	}
	resolved, err := in.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, fmt.Errorf("server: input schema of %s: %w", d.name, err)
	}
	c, _ := schemaCache.LoadOrStore(key, &compiledSchemas{in: in, out: out, resolved: resolved})
	return c.(*compiledSchemas), nil
}

// addTool registers d with the MCP server.
func (s *Server) addTool(d toolDef) error {
	cs, err := compileSchemas(d, s.mayNeedApproval(d.name, d.write))
	if err != nil {
		return err
	}
	in, out, resolved := cs.in, cs.out, cs.resolved
	t := &mcp.Tool{
		Name:         s.toolName(d.name),
		Title:        d.title,
		Description:  d.description,
		InputSchema:  in,
		OutputSchema: out,
		Annotations: &mcp.ToolAnnotations{
			Title:           d.title,
			ReadOnlyHint:    !d.write,
			DestructiveHint: ptr(d.write),
			IdempotentHint:  !d.write,
			OpenWorldHint:   ptr(false),
		},
	}
	why := ""
	if d.missing != nil {
		why = d.missing()
	}
	t.Meta = mcp.Meta{"available": why == ""}
	if why != "" {
		t.Meta["unavailableReason"] = why
		s.unserved[d.name] = true
	}
	if d.write {
		t.Meta["approval"] = "required"
	}
	s.mcp.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if why != "" {
			return nil, unavailable(cmp.Or(d.missingCode, netproto.CodeConfigIncompatible), d.name, why)
		}
		if d.write && s.opts.ReadOnly {
			return nil, accessDenied(d.name)
		}
		args, err := validateArgs(resolved, d.name, req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		c := &call{req: req, args: args, tool: d.name}
		ctx = withRetry(ctx, req)
		if wantsTask(d.name, req) {
			return s.startTask(ctx, d, c)
		}
		if s.cfg != nil && wantsWindowTask(d.name, req, c.args) {
			return s.startWindowTask(ctx, d, c)
		}
		if d.write {
			key, err := idempotencyKey(req)
			if err != nil {
				return nil, err
			}
			if key != "" {
				return s.idempotent(ctx, d.name, key, c.rawArgs(), func() (*mcp.CallToolResult, error) { return s.serveCall(ctx, d, c) })
			}
		}
		return s.serveCall(ctx, d, c)
	})
	return nil
}

// serveCall runs a validated call of d and makes its result.
func (s *Server) serveCall(ctx context.Context, d toolDef, c *call) (*mcp.CallToolResult, error) {
	s.syncDevice()
	if !d.write {
		if err := s.approveRead(ctx, c); err != nil {
			if res := approvalRequiredToolResult(err); res != nil {
				return res, nil
			}
			return nil, err
		}
	}
	out, err := d.run(withAnswerer(ctx), c)
	if err != nil {
		if res := approvalRequiredToolResult(err); res != nil {
			return res, nil
		}
		if e := RPCError(err); e != nil {
			return nil, e
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res := &mcp.CallToolResult{}
		res.SetError(err)
		return res, nil
	}
	if res, ok, err := maskedToolResult(ctx, out); ok || err != nil {
		return res, err
	}
	return toolResult(out)
}

func ptr[T any](v T) *T { return &v }

// validateArgs checks raw arguments against the tool's schema, applies
// defaults and returns them as JSON.
func validateArgs(rs *jsonschema.Resolved, tool string, raw json.RawMessage) (json.RawMessage, error) {
	var m map[string]any
	decoded := len(raw) != 0 && string(raw) != "null"
	if !decoded {
		m = map[string]any{}
	} else if err := json.Unmarshal(raw, &m); err != nil {
		return nil, invalidParams("%s: arguments must be a JSON object: %v", tool, err)
	}
	before := countKeys(m)
	if err := rs.ApplyDefaults(&m); err != nil {
		return nil, invalidParams("%s: %v", tool, err)
	}
	if err := rs.Validate(m); err != nil {
		return nil, invalidParams("%s: invalid arguments: %s", tool, strings.TrimPrefix(err.Error(), "validating root: "))
	}
	if decoded && countKeys(m) == before {
		// ApplyDefaults only adds missing members: with none added, the
		// arguments are the ones validated, and re-encoding them would
		// change nothing a handler decodes.
		return raw, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, invalidParams("%s: %v", tool, err)
	}
	return b, nil
}

// countKeys counts the members of every object in v, nested ones
// included.
func countKeys(v any) int {
	n := 0
	switch t := v.(type) {
	case map[string]any:
		n += len(t)
		for _, c := range t {
			n += countKeys(c)
		}
	case []any:
		for _, c := range t {
			n += countKeys(c)
		}
	}
	return n
}

// toolResult makes the result of a successful call: structuredContent is
// out, and the text fallback is its JSON (or its Text()).
func toolResult(out any) (*mcp.CallToolResult, error) {
	b, err := marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding tool output: %w", err)
	}
	text := string(b)
	if t, ok := out.(textResult); ok {
		text = t.Text()
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(b),
	}, nil
}
