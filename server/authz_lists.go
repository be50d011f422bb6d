package server

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/policy"
)

// filterList returns a list result showing only what id may use: tools it
// may call, resources and templates it may read (each tagged with
// _meta.privacyLevel), prompts it may get. The SDK's list results point to
// the server's registered definitions, so they are copied, never changed.
func (sec *Security) filterList(res mcp.Result, id policy.Identity) mcp.Result {
	switch r := res.(type) {
	case *mcp.ListToolsResult:
		out := *r
		out.Tools = nil
		for _, t := range r.Tools {
			if sec.pol.Decide(id, policy.Action{Kind: policy.CallTool, Tool: t.Name}) == nil {
				out.Tools = append(out.Tools, t)
			}
		}
		if out.Tools == nil {
			out.Tools = []*mcp.Tool{}
		}
		return &out
	case *mcp.ListResourcesResult:
		out := *r
		out.Resources = []*mcp.Resource{}
		for _, x := range r.Resources {
			if x == nil || !sec.resourceVisible(id, x.URI) {
				continue
			}
			c := *x
			c.Meta = withPrivacy(x.Meta, x.URI)
			out.Resources = append(out.Resources, &c)
		}
		return &out
	case *mcp.ListResourceTemplatesResult:
		out := *r
		out.ResourceTemplates = []*mcp.ResourceTemplate{}
		for _, x := range r.ResourceTemplates {
			if x == nil || !sec.resourceVisible(id, x.URITemplate) {
				continue
			}
			c := *x
			c.Meta = withPrivacy(x.Meta, x.URITemplate)
			out.ResourceTemplates = append(out.ResourceTemplates, &c)
		}
		return &out
	case *promptList:
		return &promptList{ListPromptsResult: sec.filterPrompts(r.ListPromptsResult, id), schemas: r.schemas}
	case *mcp.ListPromptsResult:
		return sec.filterPrompts(r, id)
	}
	return res
}

func (sec *Security) filterPrompts(r *mcp.ListPromptsResult, id policy.Identity) *mcp.ListPromptsResult {
	out := *r
	if sec.promptAllowed(id) != nil {
		out.Prompts = []*mcp.Prompt{}
	}
	return &out
}

// withPrivacy returns a copy of meta with the privacy level of uri.
func withPrivacy(meta mcp.Meta, uri string) mcp.Meta {
	m := make(mcp.Meta, len(meta)+1)
	for k, v := range meta {
		m[k] = v
	}
	m[MetaPrivacyLevel] = ClassifyResource(uri).PrivacyLevel
	return m
}
