package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/netproto"
)

// Neighbour-callable capabilities. Every one is read-only; there is no
// capability for a write, so no negotiation can authorise one.
const (
	CapPing       = "ietf-ping"
	CapTraceroute = "ietf-traceroute"
	CapCounters   = "ietf-interface-counters"
	CapYangRead   = "ietf-yang-read"
	CapCapture    = "ietf-capture"
	CapNeighbors  = "ietf-d2d-neighbors"
)

// ToolNeighbors is the agent's own tool listing its discovered neighbours.
const ToolNeighbors = "d2d.neighbors"

// ToolAsk is the operator's tool: run an intent, return the report.
const ToolAsk = "d2d.ask"

// ToolRevoke is the operator's tool: withdraw a peer's authorization.
const ToolRevoke = "d2d.revoke"

// ToolMitigate is the operator tool that applies this device's proposal
// of a report (Mitigate), with the operator's consent when "consent" is
// true.
const ToolMitigate = "d2d.mitigate"

// DefaultOffer is what an agent offers its neighbours unless configured.
var DefaultOffer = []string{CapPing, CapTraceroute, CapCounters, CapYangRead, CapCapture, CapNeighbors, CapAttest}

// counterPrefix is the YANG subtree CapCounters admits.
const counterPrefix = "/openconfig-interfaces:interfaces"

// capTools maps each capability to the tool it makes callable.
var capTools = map[string]string{
	CapPing:       netproto.ToolPing,
	CapTraceroute: netproto.ToolTraceroute,
	CapCounters:   netproto.ToolYangGet,
	CapYangRead:   netproto.ToolYangGet,
	CapCapture:    netproto.ToolCapture,
	CapNeighbors:  ToolNeighbors,
	CapAttest:     ToolAttest,
}

// KnownCapability reports whether name is a neighbour-callable capability.
func KnownCapability(name string) bool { _, ok := capTools[name]; return ok }

// checkOffer refuses an offer naming an unknown capability (a typo, or a
// write someone hoped to expose).
func checkOffer(offer []string) error {
	for _, c := range offer {
		if !KnownCapability(c) {
			return fmt.Errorf("agent: %q is not a neighbour-callable capability (known: %s); writes are never neighbour-callable", c, strings.Join(sortedKeys(capTools), ", "))
		}
	}
	return nil
}

// Intersect returns the capabilities in both a and b, sorted.
func Intersect(a, b []string) []string {
	var out []string
	for _, c := range a {
		if slices.Contains(b, c) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// toolsFor returns the tools a capability set makes callable, sorted.
func toolsFor(caps []string) []string {
	var out []string
	for _, c := range caps {
		if t, ok := capTools[c]; ok && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// authorise decides whether a neighbour authorised for caps may call tool
// with args; the error says why not.
func authorise(caps []string, tool string, args json.RawMessage) error {
	var admitted []string
	for _, c := range caps {
		if capTools[c] == tool {
			admitted = append(admitted, c)
		}
	}
	if len(admitted) == 0 {
		return fmt.Errorf("tool %q is not neighbour-callable in this session (authorised capabilities: [%s]); writes are never neighbour-callable", tool, strings.Join(caps, ", "))
	}
	if tool != netproto.ToolYangGet {
		return nil
	}
	var a struct {
		Path      string `json:"path"`
		Datastore string `json:"datastore"`
	}
	_ = json.Unmarshal(args, &a)
	if a.Datastore != "" && a.Datastore != "operational" && a.Datastore != "running" {
		return fmt.Errorf("datastore %q is not readable by neighbours (operational or running)", a.Datastore)
	}
	if slices.Contains(admitted, CapYangRead) {
		return nil
	}
	if a.Path == counterPrefix || strings.HasPrefix(a.Path, counterPrefix+"/") {
		return nil
	}
	return fmt.Errorf("path %q is outside %s, the only subtree capability %s admits", a.Path, counterPrefix, CapCounters)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
