package server

import (
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
)

// wholeTree is the YANG path of everything: whole configurations (files,
// config text resources, prompts that read any state) are checked as a
// read or write of it.
const wholeTree = "/"

// authorize decides one request of id:
//
//	tools/call            CallTool, then per tool: network.yang.get ReadPath of its path;
//	                      network.yang.edit WritePath of every edit's path;
//	                      network.file.pull ReadPath "/"; network.file.push WritePath "/"
//	resources/read        ReadResource, ReadPath of the resource's subtree, and
//	resources/subscribe   consent for privacy level 3
//	resources/write       CallTool network.file.push and WritePath "/"
//	prompts/get           ReadPath "/" (prompts read any device state)
//
// Other methods (initialize, lists, ping, completion, logging) are not
// refused; lists are filtered afterwards.
func (sec *Security) authorize(req mcp.Request, id policy.Identity) error {
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		return sec.authorizeTool(id, p.Name, p.Arguments)
	case *mcp.ReadResourceParams:
		return sec.authorizeResource(id, p.URI, p.Meta)
	case *mcp.SubscribeParams:
		return sec.authorizeResource(id, p.URI, p.Meta)
	case *WriteParams:
		if err := sec.pol.Decide(id, policy.Action{Kind: policy.CallTool, Tool: netproto.ToolFilePush}); err != nil {
			return prefixDenial(MethodResourcesWrite+" writes a configuration file as "+netproto.ToolFilePush+" does", err)
		}
		return sec.pol.Decide(id, policy.Action{Kind: policy.WritePath, Path: wholeTree})
	case *mcp.GetPromptParams:
		return sec.promptAllowed(id)
	}
	return nil
}

// authorizeTool decides a tools/call: the tool, then the paths its
// arguments name. Arguments that cannot be read are left to the tool's
// schema validation (-32602).
func (sec *Security) authorizeTool(id policy.Identity, name string, args json.RawMessage) error {
	if err := sec.pol.Decide(id, policy.Action{Kind: policy.CallTool, Tool: name}); err != nil {
		return err
	}
	switch canonicalToolName(name) {
	case netproto.ToolYangGet:
		var in struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(args, &in) == nil && in.Path != "" {
			return sec.pol.Decide(id, policy.Action{Kind: policy.ReadPath, Path: in.Path})
		}
	case netproto.ToolYangEdit:
		var in struct {
			Edit []struct {
				Path string `json:"path"`
			} `json:"edit"`
		}
		if json.Unmarshal(args, &in) == nil {
			for _, e := range in.Edit {
				if e.Path == "" {
					continue
				}
				if err := sec.pol.Decide(id, policy.Action{Kind: policy.WritePath, Path: e.Path}); err != nil {
					return err
				}
			}
		}
	case netproto.ToolFilePull:
		return sec.pol.Decide(id, policy.Action{Kind: policy.ReadPath, Path: wholeTree})
	case netproto.ToolFilePush:
		return sec.pol.Decide(id, policy.Action{Kind: policy.WritePath, Path: wholeTree})
	}
	return nil
}

// authorizeResource decides a read or subscription of uri: the resource,
// its YANG subtree, and for privacy level 3 the caller's consent
// (_meta.privacyConsent true) and the secrets scope.
func (sec *Security) authorizeResource(id policy.Identity, uri string, meta mcp.Meta) error {
	if err := sec.pol.Decide(id, policy.Action{Kind: policy.ReadResource, URI: uri}); err != nil {
		return err
	}
	c := ClassifyResource(uri)
	if c.Path != "" {
		if err := sec.pol.Decide(id, policy.Action{Kind: policy.ReadPath, Path: c.Path}); err != nil {
			return err
		}
	}
	if c.PrivacyLevel < PrivacyCustomer {
		return nil
	}
	if !sec.pol.MayReadSecrets(id) {
		return netproto.Errorf(netproto.CodeAccessDenied,
			"reading resource %s denied: it is privacy level %d data (troubleshooting draft 7.5), which only roles with the %q scope may read; %s lacks it",
			uri, c.PrivacyLevel, policy.ScopeSecrets, id)
	}
	if consent, _ := meta[MetaPrivacyConsent].(bool); !consent {
		return netproto.Errorf(netproto.CodeAccessDenied,
			"reading resource %s denied: it is privacy level %d data; ask the user, then repeat the read with _meta.%s: true",
			uri, c.PrivacyLevel, MetaPrivacyConsent)
	}
	return nil
}

// resourceVisible reports whether resources/list shows uri to id: the
// caller may read it (level-3 resources: with consent).
func (sec *Security) resourceVisible(id policy.Identity, uri string) bool {
	return sec.authorizeResource(id, uri, mcp.Meta{MetaPrivacyConsent: true}) == nil
}

// promptAllowed decides prompts/get: prompts read any device state
// (diagnosis runbooks run CLI commands and YANG reads), so they need a
// read of the whole tree.
func (sec *Security) promptAllowed(id policy.Identity) error {
	if err := sec.pol.Decide(id, policy.Action{Kind: policy.ReadPath, Path: wholeTree}); err != nil {
		return prefixDenial("prompts read any device state", err)
	}
	return nil
}

// prefixDenial puts why before the detail of a -32083 error of the policy.
func prefixDenial(why string, err error) error {
	var ne *netproto.Error
	if !errors.As(err, &ne) {
		return err
	}
	out := *ne
	out.Detail = why + "; " + ne.Detail
	return &out
}

// canonicalToolName maps the compatibility form (network_cli_exec) of a
// draft tool to its dotted name; other names are returned unchanged.
func canonicalToolName(name string) string {
	for _, t := range netproto.NetworkTools {
		if name == netproto.CompatName(t) {
			return t
		}
	}
	return name
}
