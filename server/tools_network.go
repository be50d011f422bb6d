package server

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/clipipe"
	"github.com/netmcp/netmcp/netproto"
)

// addTools registers the eight MCP-NET tools.
func (s *Server) addTools() error {
	noConfig := func() string {
		if s.cfg == nil {
			return "the device's configuration cannot be changed through this driver"
		}
		return ""
	}
	noYang := func() string {
		if !s.hasYang() {
			return "the device advertises no YANG modules; use network.cli.exec"
		}
		return ""
	}
	noFiles := func() string {
		if s.files == nil {
			return "the device has no configuration files through this driver"
		}
		return ""
	}
	defs := []toolDef{
		{name: netproto.ToolCLIExec, title: "Run a show command",
			description: "Execute one operational (show/display) CLI command and return its output.",
			input:       cliExecInput, output: cliExecOutput,
			run: s.cliExec},
		{name: netproto.ToolCLIConfigure, title: "Configure with CLI lines", write: true, missing: noConfig,
			description: "Enter configuration mode and apply CLI configuration lines to the candidate (all or nothing). Commit with network.commit.",
			input:       cliConfigureInput, output: cliConfigureOutput,
			run: s.cliConfigure},
		{name: netproto.ToolYangGet, title: "Read a YANG data node", missing: noYang,
			description: "Retrieve the RFC 7951 JSON of a YANG instance path from a datastore.",
			input:       yangGetInput, output: yangGetOutput,
			run: s.yangGet},
		{name: netproto.ToolYangEdit, title: "Edit the candidate datastore", write: true,
			missing:     func() string { return cmp.Or(noConfig(), noYang()) },
			description: "Apply YANG edits to the candidate datastore, all or nothing. Commit with network.commit.",
			input:       yangEditInput, output: yangEditOutput,
			run: s.yangEdit},
		{name: netproto.ToolCommit, title: "Commit the candidate", write: true, missing: noConfig,
			description: "Commit the candidate to running. {\"confirmed\":N} arms an N-second automatic rollback unless {\"confirm\":true} follows; {\"cancel\":true} rolls a pending confirmed commit back; {\"dryRun\":true} only validates and diffs.",
			input:       commitInput, output: commitOutput,
			run: s.commit},
		{name: netproto.ToolRollback, title: "Roll back to a previous commit", write: true, missing: noConfig,
			missingCode: netproto.CodeRollbackNotSupported,
			description: "Make running the configuration of an earlier commit (default: the one before the last), as a new commit.",
			input:       rollbackInput, output: commitOutput,
			run: s.rollback},
		{name: netproto.ToolFilePull, title: "Back up a configuration file", missing: noFiles,
			description: "Return a configuration file (or one chunk of it: offset, length; follow nextOffset) with the SHA-256 of the whole file.",
			input:       filePullInput, output: filePullOutput,
			run: s.filePull},
		{name: netproto.ToolFilePush, title: "Restore a configuration file", write: true, missing: noFiles,
			description: "Replace the candidate or startup configuration with the given text after checking its syntax (and its SHA-256 when given). Large files go in chunks: offset and more=true, the last chunk with the sha256 of the whole file.",
			input:       filePushInput, output: filePushOutput,
			run: s.filePush},
	}
	for _, d := range defs {
		if err := s.addTool(d); err != nil {
			return err
		}
	}
	return nil
}

// props are the refinements of an object schema's properties.
type props = map[string]*jsonschema.Schema

// The arguments and results of the MCP-NET tools, and their schemas (see
// inputSchema and outputSchema). A result's fields are in the order of
// their JSON names, so that its JSON text is the same as a map's.

// cliExecArgs are the arguments of network.cli.exec.
type cliExecArgs struct {
	Cmd string `json:"cmd" jsonschema:"the show/display command, e.g. \"show ip arp vrf mgmt 10.0.0.5\""`
}

// cliExecResult is the result of network.cli.exec.
type cliExecResult struct {
	Stdout string `json:"stdout"`
}

// Text is the command's output itself.
func (o cliExecResult) Text() string { return o.Stdout }

// cliConfigureArgs are the arguments of network.cli.configure: commands,
// or else lines.
type cliConfigureArgs struct {
	Commands []string `json:"commands,omitempty" jsonschema:"configuration lines in the device's dialect"`
	Lines    string   `json:"lines,omitempty" jsonschema:"the same, as one newline-separated text"`
	handleArg
}

// cliConfigureResult is the result of network.cli.configure.
type cliConfigureResult struct {
	Changes []device.Change `json:"changes"`
	Diff    string          `json:"diff"`
	handleResult
	Lines  int    `json:"lines"`
	Status string `json:"status"`
	Target string `json:"target"`
}

// yangGetArgs are the arguments of network.yang.get.
type yangGetArgs struct {
	Path      string `json:"path" jsonschema:"YANG instance path, e.g. /openconfig-interfaces:interfaces/interface[name='Gi0/0/0/0']"`
	Datastore string `json:"datastore,omitempty"`
}

// yangGetResult is the result of network.yang.get.
type yangGetResult struct {
	Data any `json:"data" jsonschema:"the RFC 7951 JSON of the node: any JSON value"`
}

// jsonTree returns the result as a generic JSON tree, which a caller's
// masker reads whole before it is encoded (see maskedToolResult).
func (r yangGetResult) jsonTree() any { return map[string]any{"data": r.Data} }

// yangEditArgs are the arguments of network.yang.edit.
type yangEditArgs struct {
	Target string        `json:"target,omitempty"`
	Edit   []device.Edit `json:"edit"`
	handleArg
}

// yangEditResult is the result of network.yang.edit.
type yangEditResult struct {
	Changes  []device.Change `json:"changes"`
	CommitID string          `json:"commit-id"`
	Diff     string          `json:"diff"`
	handleResult
}

// commitArgs are the arguments of network.commit.
type commitArgs struct {
	Confirmed any    `json:"confirmed,omitempty" jsonschema:"seconds of the rollback window (true: the device default)"`
	Confirm   bool   `json:"confirm,omitempty"`
	Cancel    bool   `json:"cancel,omitempty"`
	DryRun    bool   `json:"dryRun,omitempty"`
	Comment   string `json:"comment,omitempty"`
	handleArg
}

// rollbackArgs are the arguments of network.rollback.
type rollbackArgs struct {
	ID string `json:"commit-id,omitempty"`
}

// Schemas of the MCP-NET tools.
var (
	cliExecInput = inputSchema[cliExecArgs](&jsonschema.Schema{Properties: props{
		"cmd": {MinLength: ptr(1), MaxLength: ptr(1024)},
	}})
	cliExecOutput     = outputSchema[cliExecResult](nil)
	cliConfigureInput = inputSchema[cliConfigureArgs](&jsonschema.Schema{Properties: props{
		"commands": {MinItems: ptr(1), MaxItems: ptr(20000), Items: &jsonschema.Schema{MaxLength: ptr(4096)}},
		"lines":    {MinLength: ptr(1), MaxLength: ptr(4 << 20)},
	}})
	cliConfigureOutput = outputSchema[cliConfigureResult](&jsonschema.Schema{Required: []string{"status", "target"}})
	yangGetInput       = inputSchema[yangGetArgs](&jsonschema.Schema{Properties: props{
		"path":      {MinLength: ptr(1), MaxLength: ptr(4096)},
		"datastore": {Enum: []any{"running", "candidate", "operational"}, Default: jsonValue("operational")},
	}})
	yangGetOutput = outputSchema[yangGetResult](nil)
	yangEditInput = inputSchema[yangEditArgs](&jsonschema.Schema{Properties: props{
		"target": {Const: constValue("candidate"), Default: jsonValue("candidate")},
		"edit": {MinItems: ptr(1), Items: &jsonschema.Schema{Properties: props{
			"path":      {MinLength: ptr(1), MaxLength: ptr(4096)},
			"value":     {Description: "the node's new content, RFC 7951 JSON (any JSON value); not used by delete and remove"},
			"operation": {Enum: []any{"merge", "replace", "create", "delete", "remove"}, Default: jsonValue("merge")},
		}}},
	}})
	yangEditOutput = outputSchema[yangEditResult](&jsonschema.Schema{Required: []string{"commit-id"}})
	commitInput    = inputSchema[commitArgs](&jsonschema.Schema{Properties: props{
		"confirmed": {Types: []string{"integer", "boolean"}, Minimum: ptr(1.0), Maximum: ptr(86400.0)},
		"comment":   {MaxLength: ptr(256)},
	}})
	// commitOutput is the result of network.commit and network.rollback.
	commitOutput  = outputSchema[device.CommitResult](nil)
	rollbackInput = inputSchema[rollbackArgs](nil)
)

func (s *Server) cliExec(ctx context.Context, c *call) (any, error) {
	var in cliExecArgs
	if err := c.bind(&in); err != nil {
		return nil, err
	}
	// The output filter ("| include RE") runs here, on what the caller may
	// see: run on the device's unmasked output, it would answer, line by
	// line, whether a secret matches RE.
	cmd, filter, err := clipipe.Split(in.Cmd)
	if err != nil {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "%s: %v", c.tool, err)
	}
	if err := s.approveExecClear(ctx, c, cmd); err != nil {
		return nil, err
	}
	out, err := s.drv.Exec(ctx, cmd)
	if err != nil {
		return nil, err
	}
	if m := maskerFrom(ctx); m != nil {
		out = m.config(out)
	}
	return cliExecResult{Stdout: filter.Apply(out)}, nil
}

func (s *Server) cliConfigure(ctx context.Context, c *call) (any, error) {
	var in cliConfigureArgs
	if err := c.bind(&in); err != nil {
		return nil, err
	}
	lines := cliLines(in.Commands, in.Lines)
	if len(lines) == 0 {
		return nil, invalidParams("%s: give \"commands\" (an array of lines) or \"lines\" (text)", c.tool)
	}
	ss := c.req.Session
	ctx, owner, h, mu, err := s.writeTarget(ctx, c, true)
	if err != nil {
		return nil, err
	}
	// Refuse what cannot apply before a person is asked to approve it.
	if err := s.checkConfigure(ctx, owner, lines); err != nil {
		return nil, err
	}
	if err := s.approve(ctx, ss, c.tool, c.rawArgs(), "apply to the candidate:\n"+strings.Join(lines, "\n")); err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	if err := s.refreshHandle(ctx, h); err != nil {
		return nil, err
	}
	if err := s.cfg.Configure(ctx, owner, lines); err != nil {
		return nil, err
	}
	if h != nil {
		if err := s.saveHandle(h, &candidateOp{Lines: lines}, false); err != nil {
			return nil, s.handleLost(ctx, h, err)
		}
	}
	d, err := s.cfg.Diff(ctx, owner)
	if err != nil {
		return nil, err
	}
	return cliConfigureResult{Status: "applied", Target: "candidate", Lines: len(lines),
		Changes: nonNil(d.Changes), Diff: d.Unified, handleResult: h.result()}, nil
}

// cliLines returns the configuration lines of network.cli.configure:
// "commands", or else "lines" split at newlines.
func cliLines(commands []string, text string) []string {
	if len(commands) == 0 && text != "" {
		return strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	}
	return commands
}

func nonNil(c []device.Change) []device.Change {
	if c == nil {
		return []device.Change{}
	}
	return c
}

func (s *Server) yangGet(ctx context.Context, c *call) (any, error) {
	var in yangGetArgs
	if err := c.bind(&in); err != nil {
		return nil, err
	}
	if m := maskerFrom(ctx); m != nil {
		if err := m.selectsBySecret(in.Path); err != nil {
			return nil, err
		}
	}
	data, err := s.drv.Get(ctx, device.Datastore(in.Datastore), in.Path)
	if err != nil {
		return nil, err
	}
	return yangGetResult{Data: data}, nil
}

func (s *Server) yangEdit(ctx context.Context, c *call) (any, error) {
	var in yangEditArgs
	if err := c.bind(&in); err != nil {
		return nil, err
	}
	if max := s.info.MaxBulkEdit; max > 0 && len(in.Edit) > max {
		return nil, RPCError(netproto.Errorf(netproto.CodeConfigIncompatible, "%s: %d edits exceed maxBulkEdit %d; nothing was applied; split the change into requests of at most %d edits", c.tool, len(in.Edit), max, max))
	}
	ss := c.req.Session
	ctx, owner, h, mu, err := s.writeTarget(ctx, c, true)
	if err != nil {
		return nil, err
	}
	// Refuse what cannot apply before a person is asked to approve it.
	if err := s.checkEdit(ctx, owner, in.Edit); err != nil {
		return nil, err
	}
	var sum strings.Builder
	sum.WriteString("edit the candidate:")
	for _, e := range in.Edit {
		fmt.Fprintf(&sum, "\n%s", editSummary(e))
	}
	if err := s.approve(ctx, ss, c.tool, c.rawArgs(), sum.String()); err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	if err := s.refreshHandle(ctx, h); err != nil {
		return nil, err
	}
	if err := s.cfg.Edit(ctx, owner, in.Edit); err != nil {
		return nil, err
	}
	if h != nil {
		if err := s.saveHandle(h, &candidateOp{Edit: in.Edit}, false); err != nil {
			return nil, s.handleLost(ctx, h, err)
		}
	}
	d, err := s.cfg.Diff(ctx, owner)
	if err != nil {
		return nil, err
	}
	return yangEditResult{CommitID: s.nextEditID(), Changes: nonNil(d.Changes), Diff: d.Unified, handleResult: h.result()}, nil
}

// nextEditID names a candidate change in the draft's commit-id format
// (section 8.4: "2025-10-19-03-27-00"), made unique with a sequence suffix.
func (s *Server) nextEditID() string {
	s.mu.Lock()
	s.editSeq++
	n := s.editSeq
	s.mu.Unlock()
	id := time.Now().UTC().Format("2006-01-02-15-04-05")
	if n > 1 {
		id = fmt.Sprintf("%s-%d", id, n)
	}
	return id
}

func (s *Server) commit(ctx context.Context, c *call) (any, error) {
	var in commitArgs
	if err := c.bind(&in); err != nil {
		return nil, err
	}
	confirmed := 0
	switch v := in.Confirmed.(type) {
	case float64:
		confirmed = int(v)
	case bool:
		if v {
			confirmed = s.rollbackWindow()
		}
	}
	modes := 0
	for _, b := range []bool{in.Confirm, in.Cancel, in.DryRun} {
		if b {
			modes++
		}
	}
	if modes > 1 || modes == 1 && confirmed > 0 && !in.DryRun {
		return nil, invalidParams("%s: confirm, cancel, dryRun and confirmed exclude each other", c.tool)
	}
	if confirmed > 0 && !s.info.SupportsRollback {
		return nil, RPCError(netproto.Errorf(netproto.CodeRollbackNotSupported, "the device cannot roll a confirmed commit back automatically"))
	}
	ss := c.req.Session
	owner := s.owner(ss)
	var h *callHandle
	var mu sync.Locker = s.candidateMu(ss)
	if !in.Confirm && !in.Cancel && stateless(c) {
		// The candidate of a stateless call is the handle's.
		var err error
		if ctx, owner, h, mu, err = s.writeTarget(ctx, c, false); err != nil {
			return nil, err
		}
	}
	switch {
	case in.Confirm:
		if err := s.approve(ctx, ss, c.tool, c.rawArgs(), "confirm the pending confirmed commit (make it permanent)"); err != nil {
			return nil, err
		}
		return s.cfg.Confirm(ctx, owner)
	case in.Cancel:
		if err := s.approve(ctx, ss, c.tool, c.rawArgs(), "cancel the pending confirmed commit (roll back now)"); err != nil {
			return nil, err
		}
		return s.cfg.CancelCommit(ctx, owner)
	}
	opts := device.CommitOptions{Confirmed: confirmed, Comment: in.Comment, DryRun: in.DryRun}
	if !in.DryRun {
		// Refuse a locked or invalid candidate before a person is asked.
		if err := s.checkEdit(ctx, owner, nil); err != nil {
			return nil, err
		}
		d, err := s.cfg.Diff(ctx, owner)
		if err != nil {
			return nil, err
		}
		digest, err := s.candidateDigest(ctx, owner, d)
		if err != nil {
			return nil, err
		}
		sum := "commit the candidate to running"
		if confirmed > 0 {
			sum += fmt.Sprintf(" with automatic rollback after %d s unless confirmed", confirmed)
		}
		if d.Unified != "" {
			sum += ":\n" + d.Unified
		}
		// The approval covers this candidate only (Binding): a token or
		// answer given for it is refused once the candidate changed.
		if err := s.approveRequest(ctx, ApprovalRequest{MCPSession: ss, Tool: c.tool, Arguments: c.rawArgs(), Write: true,
			Summary: sum, RollbackWindow: confirmed, Binding: digest}); err != nil {
			return nil, err
		}
		// The candidate may have changed while the approval was given
		// (a concurrent call of this session): commit only what was approved.
		mu.Lock()
		defer mu.Unlock()
		if err := s.refreshHandle(ctx, h); err != nil {
			return nil, err
		}
		if d, err = s.cfg.Diff(ctx, owner); err != nil {
			return nil, err
		}
		now, err := s.candidateDigest(ctx, owner, d)
		if err != nil {
			return nil, err
		}
		if now != digest {
			return nil, errCandidateChanged(c.tool)
		}
	}
	opts.Comment = approvedComment(ctx, opts.Comment)
	res, err := s.cfg.Commit(ctx, owner, opts)
	if err == nil && h != nil && !in.DryRun {
		// The commit consumed the handle's candidate; the handle goes on
		// for the next change.
		if err := s.saveHandle(h, nil, true); err != nil {
			s.log.Warn("handle not saved after its commit", "owner", owner.Session, "error", err)
		}
	}
	return res, err
}

// defaultRollbackWindow is the rollback window of a confirmed commit
// when the device advertises none, in seconds.
const defaultRollbackWindow = 300

// rollbackWindow is the window, in seconds, of a confirmed commit that
// names none ({"confirmed": true}, the add-vlan prompt's commit).
func (s *Server) rollbackWindow() int {
	if s.info.RollbackTimeout > 0 {
		return s.info.RollbackTimeout
	}
	return defaultRollbackWindow
}

func (s *Server) rollback(ctx context.Context, c *call) (any, error) {
	var in rollbackArgs
	if err := c.bind(&in); err != nil {
		return nil, err
	}
	target := in.ID
	if target == "" {
		target = "the commit before the last"
	}
	if !s.info.SupportsRollback {
		return nil, RPCError(netproto.Errorf(netproto.CodeRollbackNotSupported, "the device cannot roll back to an earlier commit; restore a configuration file with %s instead", netproto.ToolFilePush))
	}
	if err := s.approve(ctx, c.req.Session, c.tool, c.rawArgs(), "roll running back to "+target+s.rollbackSummary(ctx, in.ID)); err != nil {
		return nil, err
	}
	return s.cfg.Rollback(ctx, s.owner(c.req.Session), in.ID)
}
