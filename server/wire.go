package server

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/transport"
)

// wireMiddleware adapts results where MCP-NET puts more on the wire than
// the SDK's types hold:
//   - resources/read of network:/// URIs is served here, so that a page
//     carries "nextCursor" and a bad URI gets a specific error; the result
//     carries "resultType" as the SDK's own read results do;
//   - prompts/list gains the argument schemas of MCP-NET 6.3;
//   - resources/subscribe answers {"subscriptionId": ...} (section 8.5).
func (s *Server) wireMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "resources/read":
			if r, ok := req.(*mcp.ReadResourceRequest); ok && r.Params != nil && strings.HasPrefix(r.Params.URI, netproto.URIScheme+":") {
				res, err := s.read(ctx, r.Params.URI, metaString(r.Params.Meta, MetaCursor))
				if err != nil {
					return nil, rpc(err)
				}
				res.ResultType = resultTypeFor(r.Session)
				return res, nil
			}
		case "prompts/list":
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListPromptsResult); ok && err == nil {
				return &promptList{ListPromptsResult: lr, schemas: s.promptSchemas}, nil
			}
			return res, err
		case "tools/call":
			res, err := next(ctx, method, req)
			if t := taskOf(res); t != nil && err == nil {
				return t.createdResult(s.tasks.ttl), nil
			}
			return res, err
		case "server/discover":
			res, err := next(ctx, method, req)
			var d *mcp.DiscoverResult
			switch r := res.(type) {
			case *mcp.DiscoverResult:
				d = r
			case *discoverResult:
				d = r.DiscoverResult
			}
			if d != nil && err == nil {
				if d.Capabilities == nil {
					d.Capabilities = &mcp.ServerCapabilities{}
				}
				d.Capabilities.AddExtension(TasksExtensionID, map[string]any{})
			}
			return res, err
		case "resources/subscribe":
			res, err := next(ctx, method, req)
			if r, ok := req.(*mcp.SubscribeRequest); ok && err == nil {
				return &subscribeResult{SubscriptionID: transport.SubscriptionID(r.Params.URI)}, nil
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// subscribeResult is the result of resources/subscribe: MCP's {} plus the
// draft's subscriptionId.
type subscribeResult struct {
	mcp.ResultBase
	SubscriptionID string `json:"subscriptionId"`
}

// promptList is a prompts/list result whose prompt arguments carry JSON
// Schema keywords (type, minimum, maximum, pattern, items) and whose
// prompts carry "required", as MCP-NET 6.3 shows; mcp.PromptArgument has
// only name, title, description and required.
type promptList struct {
	*mcp.ListPromptsResult
	schemas map[string][]argSchema
}

// MarshalJSON implements json.Marshaler.
func (p *promptList) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(p.ListPromptsResult)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	var prompts []map[string]json.RawMessage
	if err := json.Unmarshal(top["prompts"], &prompts); err != nil {
		return nil, err
	}
	for _, pr := range prompts {
		var name string
		_ = json.Unmarshal(pr["name"], &name)
		args, ok := p.schemas[name]
		if !ok {
			continue
		}
		var required []string
		for _, a := range args {
			if a.Required {
				required = append(required, a.Name)
			}
		}
		pr["arguments"], _ = json.Marshal(args)
		if len(required) > 0 {
			pr["required"], _ = json.Marshal(required)
		}
	}
	top["prompts"], _ = json.Marshal(prompts)
	return json.Marshal(top)
}
