package server

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
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
//	                      network.yang.edit WritePath of every edit's path, and
//	                      the secrets scope for an edit that writes a secret leaf;
//	                      network.cli.configure the same for the edits its lines
//	                      make (ConfigurePlanner), else WritePath "/";
//	                      network.rollback the same for the leaves it changes
//	                      (RollbackPlanner), else WritePath "/";
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
		ss, _ := req.GetSession().(*mcp.ServerSession)
		return sec.authorizeTool(id, sec.s.owner(ss), p.Name, p.Arguments)
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
func (sec *Security) authorizeTool(id policy.Identity, owner device.Owner, name string, args json.RawMessage) error {
	if err := sec.pol.Decide(id, policy.Action{Kind: policy.CallTool, Tool: name}); err != nil {
		return err
	}
	if sec.s.unserved[netproto.CanonicalName(name)] {
		// A tool the device cannot serve at all changes nothing: it
		// answers so, with its own code, to every caller who may call it,
		// whatever its arguments name.
		return nil
	}
	switch netproto.CanonicalName(name) {
	case netproto.ToolYangGet:
		var in struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(args, &in) == nil && in.Path != "" {
			return sec.pol.Decide(id, policy.Action{Kind: policy.ReadPath, Path: in.Path})
		}
	case netproto.ToolYangEdit:
		var in struct {
			Edit []device.Edit `json:"edit"`
		}
		if json.Unmarshal(args, &in) == nil {
			return sec.authorizeEdits(id, owner, name, in.Edit)
		}
	case netproto.ToolCLIExec:
		return sec.authorizeExec(id, args)
	case netproto.ToolCLIConfigure:
		return sec.authorizeCLI(id, owner, name, args)
	case netproto.ToolRollback:
		return sec.authorizeRollback(id, owner, name, args)
	case netproto.ToolFilePull:
		return sec.pol.Decide(id, policy.Action{Kind: policy.ReadPath, Path: wholeTree})
	case netproto.ToolFilePush:
		return sec.pol.Decide(id, policy.Action{Kind: policy.WritePath, Path: wholeTree})
	}
	return nil
}

// authorizeEdits decides YANG edits by the paths they write: WritePath of
// each, and the secrets scope for one that writes or removes a secret leaf
// (by name or schema path: SNMP communities, keys, passwords, wherever
// they are in the tree).
func (sec *Security) authorizeEdits(id policy.Identity, owner device.Owner, tool string, edits []device.Edit) error {
	secrets := sec.pol.MayReadSecrets(id)
	for _, e := range edits {
		if e.Path == "" {
			continue
		}
		if err := sec.pol.Decide(id, policy.Action{Kind: policy.WritePath, Path: e.Path}); err != nil {
			return err
		}
		if secrets {
			continue
		}
		if leaf := sec.secretWritten(owner, e); leaf != "" {
			return netproto.Errorf(netproto.CodeAccessDenied,
				"%s denied: %s %s writes the secret leaf %s; %s lacks the %q scope", tool, editOp(e), e.Path, leaf, id, policy.ScopeSecrets)
		}
	}
	return nil
}

// authorizeCLI decides network.cli.configure by what its lines change: the
// edits the driver plans for them are decided as network.yang.edit's are.
// Lines that do not parse are refused here, before anyone is asked to
// approve them. A driver that cannot plan makes them a write of the whole
// tree (and so of every secret).
func (sec *Security) authorizeCLI(id policy.Identity, owner device.Owner, tool string, args json.RawMessage) error {
	var in struct {
		Commands []string `json:"commands"`
		Lines    string   `json:"lines"`
	}
	if json.Unmarshal(args, &in) != nil {
		return nil // left to the schema validation (-32602)
	}
	lines := cliLines(in.Commands, in.Lines)
	planner, ok := sec.s.drv.(device.ConfigurePlanner)
	if !ok || len(lines) == 0 {
		if err := sec.pol.Decide(id, policy.Action{Kind: policy.WritePath, Path: wholeTree}); err != nil {
			return prefixDenial("this driver cannot tell which YANG paths CLI lines change, so they count as a write of the whole configuration", err)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	edits, err := planner.PlanConfigure(ctx, owner, lines)
	if err != nil {
		return err
	}
	if err := sec.authorizeEdits(id, owner, tool, edits); err != nil {
		return prefixDenial("the lines change YANG paths the caller may not write", err)
	}
	return nil
}

// authorizeRollback decides network.rollback by what it changes: each
// changed node is decided as an edit of it would be, so a caller who may
// not write a secret leaf cannot restore an old value of it either. A
// driver that cannot plan a rollback makes it a write of the whole tree.
func (sec *Security) authorizeRollback(id policy.Identity, owner device.Owner, tool string, args json.RawMessage) error {
	var in struct {
		ID string `json:"commit-id"`
	}
	if json.Unmarshal(args, &in) != nil {
		return nil // left to the schema validation (-32602)
	}
	planner, ok := sec.s.drv.(device.RollbackPlanner)
	if !ok {
		if err := sec.pol.Decide(id, policy.Action{Kind: policy.WritePath, Path: wholeTree}); err != nil {
			return prefixDenial("this driver cannot tell what a rollback changes, so it counts as a write of the whole configuration", err)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := planner.PlanRollback(ctx, in.ID)
	if err != nil {
		return nil // the rollback itself reports it (unknown commit, nothing to roll back)
	}
	edits := make([]device.Edit, 0, len(d.Changes))
	for _, c := range d.Changes {
		e := device.Edit{Path: c.Path, Operation: device.OpReplace, Value: c.New}
		if c.Op == "delete" {
			e = device.Edit{Path: c.Path, Operation: device.OpRemove}
		}
		edits = append(edits, e)
	}
	if err := sec.authorizeEdits(id, owner, tool, edits); err != nil {
		return prefixDenial("the rollback changes YANG paths the caller may not write", err)
	}
	return nil
}

// secretWritten returns the secret leaf (path and name) that e writes,
// replaces or removes, or "": a value written at a secret path or holding
// secret leaves, or a replace or delete of a subtree whose present content
// holds secret leaves.
func (sec *Security) secretWritten(owner device.Owner, e device.Edit) string {
	names := sec.mask.r
	probe := e.Value
	if probe == nil {
		probe = "x" // the path alone: is it a secret leaf?
	}
	if _, secret := names.ValueAtStructural(e.Path, probe); secret {
		return e.Path
	}
	switch e.Operation {
	case device.OpReplace, device.OpDelete, device.OpRemove:
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, ds := range []device.Datastore{device.Candidate, device.Running} {
			if cur, err := sec.s.drv.Get(ctx, ds, e.Path); err == nil && cur != nil {
				if _, secret := names.ValueAtStructural(e.Path, cur); secret {
					return "inside " + e.Path
				}
			}
		}
	}
	return ""
}

// editOp names an edit's operation (merge when not given).
func editOp(e device.Edit) string {
	if e.Operation == "" {
		return string(device.OpMerge)
	}
	return string(e.Operation)
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
