package policy

import (
	"fmt"
	"sort"
)

// ApprovalMode says when a tool call needs human approval.
type ApprovalMode string

// Approval modes.
const (
	// ApprovalAlways: every call of the tool needs approval.
	ApprovalAlways ApprovalMode = "always"
	// ApprovalWrites: calls of state-changing tools need approval (the default).
	ApprovalWrites ApprovalMode = "writes"
	// ApprovalNever: no approval, not even for writes.
	ApprovalNever ApprovalMode = "never"
)

// ApprovalConfig is the approval section of a policy file.
type ApprovalConfig struct {
	// Default applies to tools not listed (default: writes).
	Default ApprovalMode `yaml:"default"`
	// Tools set the mode of single tools.
	Tools map[string]ApprovalMode `yaml:"tools"`
}

type approval struct {
	def   ApprovalMode
	tools map[string]ApprovalMode
}

func validMode(m ApprovalMode) bool {
	return m == ApprovalAlways || m == ApprovalWrites || m == ApprovalNever
}

func newApproval(c ApprovalConfig) (approval, error) {
	a := approval{def: c.Default, tools: map[string]ApprovalMode{}}
	if a.def == "" {
		a.def = ApprovalWrites
	}
	if !validMode(a.def) {
		return a, fmt.Errorf("policy: approval.default %q (want always, writes or never)", c.Default)
	}
	for tool, m := range c.Tools {
		if !validMode(m) {
			return a, fmt.Errorf("policy: approval.tools.%s: %q (want always, writes or never)", tool, m)
		}
		a.tools[canonicalTool(tool)] = m
	}
	return a, nil
}

// ApprovalMode returns the approval mode of a tool.
func (p *Policy) ApprovalMode(tool string) ApprovalMode {
	if m, ok := p.approval.tools[canonicalTool(tool)]; ok {
		return m
	}
	return p.approval.def
}

// NeedsApproval reports whether a call of tool needs human approval:
// always; never; or, in mode writes, when the tool changes device state.
func (p *Policy) NeedsApproval(tool string) bool {
	switch p.ApprovalMode(tool) {
	case ApprovalAlways:
		return true
	case ApprovalNever:
		return false
	}
	return IsWriteTool(canonicalTool(tool))
}

// ApprovalModes returns the default mode and the per-tool modes.
func (p *Policy) ApprovalModes() (def ApprovalMode, tools map[string]ApprovalMode) {
	tools = make(map[string]ApprovalMode, len(p.approval.tools))
	keys := make([]string, 0, len(p.approval.tools))
	for k := range p.approval.tools {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		tools[k] = p.approval.tools[k]
	}
	return p.approval.def, tools
}
