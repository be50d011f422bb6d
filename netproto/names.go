package netproto

import "strings"

// Tool names of MCP-NET section 4.
const (
	ToolCLIExec      = "network.cli.exec"
	ToolCLIConfigure = "network.cli.configure"
	ToolYangGet      = "network.yang.get"
	ToolYangEdit     = "network.yang.edit"
	ToolCommit       = "network.commit"
	ToolRollback     = "network.rollback"
	ToolFilePull     = "network.file.pull"
	ToolFilePush     = "network.file.push"
)

// Tool names of the troubleshooting draft (section 3.2, appendix A.1) and MCP-Diag.
const (
	ToolPing       = "ping"
	ToolTraceroute = "traceroute"
	ToolTracepath  = "tracepath"
	ToolDNSLookup  = "dns_lookup"
	// ToolCapture is the troubleshooting draft's "tcpdump" (section
	// 4.4.2): a packet capture on an interface from a structured filter.
	ToolCapture = "capture"
	// ToolClearCounters resets interface counters.
	ToolClearCounters = "clear-counters"
)

// NetworkTools lists the eight MCP-NET tools in the draft's order.
var NetworkTools = []string{
	ToolCLIExec, ToolCLIConfigure, ToolYangGet, ToolYangEdit,
	ToolCommit, ToolRollback, ToolFilePull, ToolFilePush,
}

// Prompt names of MCP-NET section 6.1.
const (
	PromptPingFail = "network.troubleshoot.ping-fail"
	// PromptBGPDown is the runbook of the troubleshooting draft's 4.4.2:
	// why is a BGP neighbor down.
	PromptBGPDown  = "network.troubleshoot.bgp-down"
	PromptAddVLAN  = "network.config.add-vlan"
	PromptSecAudit = "network.security.audit"
)

// CompatName returns the name with dots replaced by underscores, for MCP
// hosts that only accept names matching ^[a-zA-Z0-9_-]{1,64}$
// (network.cli.exec -> network_cli_exec).
func CompatName(name string) string { return strings.ReplaceAll(name, ".", "_") }

// CanonicalName maps the compat name of an MCP-NET tool (network_cli_exec)
// back to the draft's dotted name; any other name is returned unchanged.
// It runs on every call's authorization and audit, so it looks the name
// up in a map built once.
func CanonicalName(name string) string {
	if t, ok := compatTools[name]; ok {
		return t
	}
	return name
}

// compatTools maps each of NetworkTools' compat names to its name.
var compatTools = func() map[string]string {
	m := make(map[string]string, len(NetworkTools))
	for _, t := range NetworkTools {
		m[CompatName(t)] = t
	}
	return m
}()

// Notification stream names (MCP-NET section 3, notificationStream).
const (
	StreamSyslog        = "syslog"
	StreamNetconfStream = "netconf-stream"
	StreamSNMPTrap      = "snmp-trap"
)

// MetaCorrelationID is the _meta key of the correlation id a controller
// puts on every request made for one intent (troubleshooting draft 7.4,
// cross-device correlation): device servers record it in their audit
// trail, so one intent can be followed across devices.
const MetaCorrelationID = "netmcp/correlationId"

// MetaLogTimes is the _meta key of a syslog resource read
// (network:///log/syslog/last{count}): the time of each line, in order, as
// RFC 3339 UTC strings ("" where the device gave none). A line's own
// timestamp is in the device's format and time zone, often without a
// year; these let a client tell recent events from old ones (the
// controller's link-flap window).
const MetaLogTimes = "netmcp/times"

// MaxCorrelationID is the longest correlation id a server records.
const MaxCorrelationID = 128

// MetaAnsweredBy is the _meta key of an elicitation answer relayed by a
// proxy (the controller): the identity of the proxy's caller who gave the
// answer, which the device records with it, next to the proxy's own
// identity.
const MetaAnsweredBy = "netmcp/answeredBy"
