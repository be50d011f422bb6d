package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/internal/lazyre"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// pathVLANID is the schema path of a VLAN id (MCP-NET 7.2).
const pathVLANID = "/openconfig-vlan:vlans/vlan/config/vlan-id"

// addVLANPrompt is network.config.add-vlan: the edit, then a confirmed
// commit that the client must not run without explicit approval (6.4).
func (s *Server) addVLANPrompt(_ context.Context, _ *mcp.GetPromptRequest, args map[string]string) (*mcp.GetPromptResult, error) {
	id, _ := strconv.Atoi(strings.TrimSpace(args["vlan_id"]))
	if id < 1 || id > 4094 {
		detail := fmt.Sprintf("VLAN %d > maximum 4094", id)
		if id < 1 {
			detail = fmt.Sprintf("VLAN %d < minimum 1", id)
		}
		return nil, &netproto.Error{Code: netproto.CodeConfigIncompatible,
			ErrorData: netproto.ErrorData{Detail: detail, Path: pathVLANID, RetryPossible: false}}
	}
	name := args["name"]
	ports, err := parsePorts(args["ports"])
	if err != nil {
		return nil, err
	}
	edits := []map[string]any{{"path": "/openconfig-vlan:vlans/vlan[vlan-id='" + strconv.Itoa(id) + "']", "operation": "merge",
		"value": map[string]any{"vlan-id": id, "config": map[string]any{"vlan-id": id, "name": name, "status": "ACTIVE"}}}}
	for _, p := range ports {
		edits = append(edits, map[string]any{"path": fmt.Sprintf("%s/interface[name=%s]/openconfig-vlan:switched-vlan", pathInterfaces, quoteKey(p)),
			"operation": "merge", "value": map[string]any{"config": map[string]any{"interface-mode": "ACCESS", "access-vlan": id}}})
	}
	window := s.rollbackWindow()
	edit := s.call(netproto.ToolYangEdit, map[string]any{"target": "candidate", "edit": edits})
	dry := s.call(netproto.ToolCommit, map[string]any{"dryRun": true})
	commit := s.call(netproto.ToolCommit, map[string]any{"confirmed": window})
	commit.RequiresConfirmation = true
	confirm := s.call(netproto.ToolCommit, map[string]any{"confirm": true})
	confirm.RequiresConfirmation = true
	var b strings.Builder
	fmt.Fprintf(&b, "## Add VLAN %d (%s)", id, name)
	if len(ports) > 0 {
		fmt.Fprintf(&b, " on %s", strings.Join(ports, ", "))
	}
	fmt.Fprintf(&b, "\n\n1. Edit the candidate:\n   %s\n", s.inline(edit))
	fmt.Fprintf(&b, "2. Review the change:\n   %s\n", s.inline(dry))
	fmt.Fprintf(&b, "3. **Ask the user for explicit confirmation before committing.** Show the diff of step 2; only if the user approves, commit with a %d s automatic rollback:\n   %s\n", window, s.inline(commit))
	fmt.Fprintf(&b, "4. After verifying that the network still works, and with the user's approval, make it permanent:\n   %s", s.inline(confirm))
	return promptResult("Interactive VLAN creation wizard", b.String(), mcp.Meta{
		"toolCalls":            []toolCall{edit, dry, commit, confirm},
		"requiresConfirmation": true,
	}), nil
}

// parsePorts reads the ports argument: a JSON array of names or a
// comma-separated list.
func parsePorts(v string) ([]string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	var ports []string
	if strings.HasPrefix(v, "[") {
		if err := json.Unmarshal([]byte(v), &ports); err != nil {
			return nil, invalidParams("%s: ports must be a JSON array of interface names: %v", netproto.PromptAddVLAN, err)
		}
	} else {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				ports = append(ports, p)
			}
		}
	}
	for _, p := range ports {
		if p == "" || strings.ContainsAny(p, "'\"\n") {
			return nil, invalidParams("%s: bad interface name %q", netproto.PromptAddVLAN, p)
		}
	}
	return ports, nil
}

// finding is one result of the security audit.
type finding struct {
	Check    string `json:"check"`
	Severity string `json:"severity"`
	Object   string `json:"object,omitempty"`
	Detail   string `json:"detail"`
}

var (
	snmpDefaultRe = lazyre.New(`(?im)^\s*snmp-server community\s+(public|private)\b`)
	plainPassRe   = lazyre.New(`(?im)^\s*(?:username\s+\S+\s+)?(?:enable\s+)?password\s+(?:0\s+)?(\S+)`)
	telnetRe      = lazyre.New(`(?im)^\s*transport input\s+.*\btelnet\b`)
)

// auditPrompt is network.security.audit: it runs the checks on the running
// configuration and reports the findings.
func (s *Server) auditPrompt(ctx context.Context, _ *mcp.GetPromptRequest, args map[string]string) (*mcp.GetPromptResult, error) {
	profile := args["profile"]
	var fs []finding
	var checked []string
	if s.hasYang() {
		checked = append(checked, "interface descriptions", "unused ACLs")
		ifs, err := s.drv.Get(ctx, device.Running, pathInterfaces)
		if err == nil {
			for _, i := range yang.Entries(ifs, "openconfig-interfaces:interfaces", "interface") {
				m := yang.Object(i)
				if strings.TrimSpace(yang.String(yang.Member(m, "config", "description"))) == "" {
					fs = append(fs, finding{"interface-description", "low", yang.String(m["name"]), "interface has no description"})
				}
			}
		}
		acl, err := s.drv.Get(ctx, device.Running, "/openconfig-acl:acl")
		if err == nil {
			fs = append(fs, unusedACLs(acl)...)
		}
	}
	if s.files != nil {
		checked = append(checked, "SNMP communities", "plaintext passwords")
		if profile == "detailed" {
			checked = append(checked, "telnet access")
		}
		text, err := s.files.ReadFile(ctx, "running-config")
		if err == nil {
			for _, m := range snmpDefaultRe.Re().FindAllStringSubmatch(string(text), -1) {
				fs = append(fs, finding{"snmp-default-community", "high", "snmp-server", fmt.Sprintf("default SNMP community %q is configured", m[1])})
			}
			for _, m := range plainPassRe.Re().FindAllStringSubmatch(string(text), -1) {
				if m[1] == "7" || m[1] == "5" || strings.HasPrefix(m[1], "$") {
					continue // hashed or type-7/5 encoded
				}
				fs = append(fs, finding{"plaintext-password", "high", strings.Fields(m[0])[0], "password stored in clear text (value redacted)"})
			}
			if profile == "detailed" && telnetRe.Re().MatchString(string(text)) {
				fs = append(fs, finding{"telnet-enabled", "medium", "line vty", "telnet is allowed for remote access; use SSH only"})
			}
		}
	}
	if profile == "detailed" && s.hasYang() {
		checked = append(checked, "enabled interfaces that are down")
		ifs, err := s.drv.Get(ctx, device.Operational, pathInterfaces)
		if err == nil {
			for _, i := range yang.Entries(ifs, "openconfig-interfaces:interfaces", "interface") {
				m := yang.Object(i)
				if admin, oper := ifStatus(m); admin == "UP" && oper != "" && oper != "UP" {
					fs = append(fs, finding{"interface-down", "medium", yang.String(m["name"]), "interface is enabled but oper-status is " + oper})
				}
			}
		}
	}
	if fs == nil {
		fs = []finding{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Security audit (%s) of %s\n\nChecks: %s.\n\n", profile, s.info.Name, strings.Join(checked, ", "))
	if len(fs) == 0 {
		b.WriteString("No findings.")
	} else {
		fmt.Fprintf(&b, "%d findings:\n\n| severity | check | object | detail |\n|---|---|---|---|\n", len(fs))
		for _, f := range fs {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", f.Severity, f.Check, f.Object, f.Detail)
		}
	}
	return promptResult("Generate and run security compliance checks", strings.TrimRight(b.String(), "\n"),
		mcp.Meta{"findings": fs, "checks": checked, "toolCalls": []toolCall{}}), nil
}

// unusedACLs lists the ACL sets bound to no interface.
func unusedACLs(acl any) []finding {
	m := aclRoot(acl)
	used := boundACLSets(m, func(any) bool { return true })
	var out []finding
	for _, set := range yang.Entries(m["acl-sets"], "acl-sets", "acl-set") {
		if n := yang.String(yang.Member(set, "name")); !used[n] {
			out = append(out, finding{"unused-acl", "low", n, "ACL is defined but applied to no interface"})
		}
	}
	return out
}
