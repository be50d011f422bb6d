package server

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// This file is network.troubleshoot.bgp-down: a runbook, like ping-fail,
// that reads the device step by step (the neighbour's session state and
// last error, the route to the peer, a ping, the ACLs on the interface
// toward the peer) until "Diagnosis complete" names the root cause: an
// AS mismatch, a missing route, an ACL (rule and interface) dropping TCP
// port 179, or an unreachable peer.

// pathBGPNeighbors is the default instance's BGP neighbour list.
const pathBGPNeighbors = "/openconfig-network-instance:network-instances/network-instance[name='default']" +
	"/protocols/protocol[identifier='openconfig-policy-types:BGP'][name='bgp']/bgp/neighbors"

// bgpPort is BGP's TCP port.
const bgpPort = 179

// bgpRunbook is the state of one BGP diagnosis between prompts/get calls.
type bgpRunbook struct {
	peer     netip.Addr
	local    netip.Addr // the session's source address, when known
	step     int
	calls    []toolCall
	outIf    string
	nextHop  string
	findings []string
}

// bgpDownArgs are the prompt's arguments.
var bgpDownArgs = []argSchema{
	{Name: "neighbor", Description: "address of the BGP neighbor whose session is down", Required: true, Type: "string"},
	{Name: "previousContextId", Description: "contextId of the previous step, to continue the diagnosis", Type: "string"},
	{Name: "results", Description: "JSON array: the results of the previous step's toolCalls, in order (structuredContent or text)", Type: "string"},
}

// bgpDownPrompt is network.troubleshoot.bgp-down.
func (s *Server) bgpDownPrompt(ctx context.Context, req *mcp.GetPromptRequest, args map[string]string) (*mcp.GetPromptResult, error) {
	prev := args["previousContextId"]
	if prev == "" {
		prev = metaString(req.Params.Meta, "previousContextId")
	}
	if prev == "" {
		peer, err := netip.ParseAddr(strings.TrimSpace(args["neighbor"]))
		if err != nil {
			return nil, invalidParams("%s: neighbor %q is not an IP address", netproto.PromptBGPDown, args["neighbor"])
		}
		rb := &bgpRunbook{peer: peer, step: 1}
		rb.calls = []toolCall{s.call(netproto.ToolYangGet, map[string]any{"path": rb.neighborPath(), "datastore": "operational"})}
		return s.bgpStep(rb, "Read the BGP neighbor's session state and last error")
	}
	rb, ok := s.bgpRunbooks.take(prev)
	if !ok {
		return nil, invalidParams("%s: unknown or expired previousContextId %q; start again without it", netproto.PromptBGPDown, prev)
	}
	results, err := parseResults(args["results"])
	if err != nil {
		return nil, err
	}
	out := make([]any, len(rb.calls))
	for i, c := range rb.calls {
		if i < len(results) && results[i] != nil {
			out[i] = results[i]
			continue
		}
		out[i] = s.bgpReadFor(ctx, c)
	}
	return s.bgpAdvance(rb, out)
}

func (rb *bgpRunbook) neighborPath() string {
	return fmt.Sprintf("%s/neighbor[neighbor-address=%s]", pathBGPNeighbors, quoteKey(rb.peer.String()))
}

// bgpReadFor is readFor plus the ping tool.
func (s *Server) bgpReadFor(ctx context.Context, c toolCall) any {
	if c.Tool != s.toolName(netproto.ToolPing) {
		return s.readFor(ctx, c)
	}
	if s.diag == nil {
		return nil
	}
	dst, _ := c.Arguments["destination"].(string)
	r, err := s.diag.Diagnose(ctx, diag.Request{Tool: "ping", Destination: dst, Count: 3, IntervalMs: 1}, nil)
	if err != nil {
		return nil
	}
	return map[string]any{"exitCode": float64(r.ExitCode), "output": r.Output}
}

// bgpAdvance analyses the outputs of the current step and returns the next.
func (s *Server) bgpAdvance(rb *bgpRunbook, out []any) (*mcp.GetPromptResult, error) {
	switch rb.step {
	case 1: // neighbour
		n := neighborEntry(out[0])
		if n == nil {
			return s.bgpComplete(rb, fmt.Sprintf("no BGP neighbor %s is configured on this device", rb.peer))
		}
		cfg, st := yang.Object(n["config"]), yang.Object(n["state"])
		if e, ok := cfg["enabled"].(bool); ok && !e {
			return s.bgpComplete(rb, fmt.Sprintf("neighbor %s is administratively shut down (config enabled=false)", rb.peer))
		}
		peerAS := fmt.Sprint(cmp.Or(cfg["peer-as"], st["peer-as"]))
		state := strings.ToUpper(yang.String(st["session-state"]))
		lastErr := yang.String(st["netmcp-last-error"])
		note := yang.Member(st, "messages", "received")
		if sent := yang.Object(yang.Member(st, "messages", "sent")); sent != nil {
			note = sent // this device sent the NOTIFICATION (it expects another AS)
		}
		sub := yang.String(yang.Member(note, "last-notification-error-subcode"))
		if state == "" {
			rb.findings = append(rb.findings, fmt.Sprintf("Neighbor %s (remote AS %s) is configured; the device reports no session state.", rb.peer, peerAS))
		} else {
			rb.findings = append(rb.findings, fmt.Sprintf("Neighbor %s (remote AS %s) is %s%s.", rb.peer, peerAS, state, errLabel(lastErr)))
		}
		if strings.HasSuffix(sub, "BAD_PEER_AS") || strings.Contains(strings.ToLower(lastErr), "bad peer as") {
			return s.bgpComplete(rb, fmt.Sprintf("AS mismatch: the session with %s fails with OPEN Message Error/Bad Peer AS: this device expects remote AS %s, and the peer announces another AS (or expects another AS of this device); fix remote-as here or the peer's AS", rb.peer, peerAS))
		}
		if state == "ESTABLISHED" {
			return s.bgpComplete(rb, fmt.Sprintf("no fault found on this device: the session with %s is Established", rb.peer))
		}
		if la, err := netip.ParseAddr(yang.String(yang.Member(n, "transport", "state", "local-address"))); err == nil {
			rb.local = la
		}
		rb.step = 2
		rb.calls = []toolCall{s.call(netproto.ToolYangGet, map[string]any{"path": pathRIBs, "datastore": "operational"})}
		return s.bgpStep(rb, "Check the route to the peer "+rb.peer.String())
	case 2: // route
		r, ok := lookupRoute(out[0], "", rb.peer, true)
		if !ok {
			return s.bgpComplete(rb, fmt.Sprintf("missing route: no active route to the peer %s in the global routing table, so TCP port %d cannot connect", rb.peer, bgpPort))
		}
		if r.special != "" && r.special != "receive" {
			return s.bgpComplete(rb, fmt.Sprintf("missing route: traffic to the peer %s matches the discard route %s (%s)", rb.peer, r.prefix, r.special))
		}
		rb.findings = append(rb.findings, fmt.Sprintf("Route %s via %s.", r.prefix, cmp.Or(r.nextHop, r.outIf, "(connected)")))
		rb.outIf, rb.nextHop = r.outIf, r.nextHop
		rb.step = 3
		rb.calls = []toolCall{
			s.call(netproto.ToolPing, map[string]any{"destination": rb.peer.String(), "count": 3}),
			s.call(netproto.ToolYangGet, map[string]any{"path": "/openconfig-acl:acl", "datastore": "running"}),
		}
		title := "Ping the peer and check the ACLs on the interface toward it"
		if rb.outIf == "" {
			rb.calls = append(rb.calls, s.call(netproto.ToolYangGet, map[string]any{"path": pathInterfaces, "datastore": "operational"}))
			title += " (found from the next hop " + rb.nextHop + ")"
		}
		return s.bgpStep(rb, title)
	case 3: // ping, ACLs (and interfaces)
		if rb.outIf == "" && len(out) > 2 {
			nh, _ := netip.ParseAddr(rb.nextHop)
			name, _, ok := interfaceForAddress(out[2], nh)
			if !ok {
				return s.bgpComplete(rb, fmt.Sprintf("missing route: next hop %s toward the peer is on no connected subnet of this device", rb.nextHop))
			}
			rb.outIf = name
			rb.findings = append(rb.findings, fmt.Sprintf("Next hop %s is on the subnet of %s.", rb.nextHop, name))
		}
		if d, ok := bgpDroppingACL(out[1], rb.outIf, rb.local, rb.peer); ok {
			return s.bgpComplete(rb, fmt.Sprintf("ACL that drops BGP: %s entry %v, applied %s on %s, drops TCP port %d traffic with the peer %s (%s)",
				d.acl, d.seq, d.dir, rb.outIf, bgpPort, rb.peer, d.what))
		}
		rb.findings = append(rb.findings, fmt.Sprintf("No ACL on %s drops TCP port %d traffic with %s.", rb.outIf, bgpPort, rb.peer))
		switch {
		case out[0] == nil:
			rb.findings = append(rb.findings, fmt.Sprintf("No ping result for %s (the device runs no diagnostics here).", rb.peer))
		case !pingAnswered(out[0]):
			return s.bgpComplete(rb, fmt.Sprintf("peer unreachable: %s does not answer ping through %s (the peer, the link or the path beyond this device is down)", rb.peer, rb.outIf))
		default:
			rb.findings = append(rb.findings, fmt.Sprintf("The peer %s answers ping.", rb.peer))
		}
		return s.bgpComplete(rb, fmt.Sprintf("no fault found on this device for the session with %s: the route, reachability and ACLs are fine; check the peer's BGP configuration (neighbor, remote-as, update-source) and its ACLs", rb.peer))
	}
	return nil, invalidParams("%s: the diagnosis is already complete", netproto.PromptBGPDown)
}

func errLabel(e string) string {
	if e == "" {
		return ""
	}
	return " (last error: " + e + ")"
}

// neighborEntry finds the neighbour entry in a yang.get result (the entry,
// a one-element list, or the list wrapped in its containers).
func neighborEntry(v any) map[string]any {
	if l, ok := v.([]any); ok && len(l) > 0 {
		v = l[0]
	}
	m, _ := v.(map[string]any)
	if m == nil {
		return nil
	}
	for _, k := range []string{"openconfig-network-instance:neighbor", "neighbor"} {
		if l, ok := m[k].([]any); ok && len(l) > 0 {
			e, _ := l[0].(map[string]any)
			return e
		}
	}
	if _, ok := m["neighbor-address"]; ok {
		return m
	}
	if _, ok := m["config"]; ok {
		return m
	}
	return nil
}

// pingAnswered reads a ping result: the ping tool's structured content
// (loss below 100, or exit code 0) or a CLI ping's text.
func pingAnswered(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if l, ok := x["loss"].(float64); ok {
			return l < 100
		}
		if c, ok := x["exitCode"].(float64); ok {
			return c == 0
		}
		return pingAnswered(x["output"])
	case string:
		t := strings.ToLower(x)
		return strings.Contains(t, "bytes from") || strings.Contains(t, "reply from") || strings.Contains(t, "success rate is") && !strings.Contains(t, "success rate is 0 percent")
	}
	return false
}

// aclDrop is an ACL entry that drops BGP traffic.
type aclDrop struct {
	acl, dir, what string
	seq            any
}

// bgpDroppingACL finds, on the ACLs bound to ifname, the first entry that
// decides a BGP packet to or from peer (TCP, port 179 either side) and
// drops it: egress for the packets this device sends, ingress for those it
// receives. Entries are evaluated in sequence order, as the routers do.
func bgpDroppingACL(acl any, ifname string, local, peer netip.Addr) (aclDrop, bool) {
	m := aclRoot(acl)
	byName := map[string]map[string]any{}
	for _, set := range yang.Entries(m["acl-sets"], "acl-sets", "acl-set") {
		sm := yang.Object(set)
		byName[yang.String(sm["name"])] = sm
	}
	type pkt struct {
		src, dst     netip.Addr
		sport, dport int
		what         string
	}
	out := []pkt{{local, peer, 0, bgpPort, "outbound, toward the peer's port 179"}, {local, peer, bgpPort, 0, "outbound, from this device's port 179"}}
	in := []pkt{{peer, local, 0, bgpPort, "inbound, toward this device's port 179"}, {peer, local, bgpPort, 0, "inbound, from the peer's port 179"}}
	for _, i := range yang.Entries(m["interfaces"], "interfaces", "interface") {
		im := yang.Object(i)
		if yang.String(im["id"]) != ifname {
			continue
		}
		for _, dir := range []string{"ingress", "egress"} {
			for _, set := range yang.Entries(im[dir+"-acl-sets"], dir+"-acl-sets", dir+"-acl-set") {
				name := yang.String(yang.Member(set, "set-name"))
				pkts := in
				if dir == "egress" {
					pkts = out
				}
				for _, p := range pkts {
					seq, drop, ok := firstMatch(byName[name], p.src, p.dst, p.sport, p.dport)
					if ok && drop {
						return aclDrop{acl: name, dir: dir, what: p.what, seq: seq}, true
					}
				}
			}
		}
	}
	return aclDrop{}, false
}

// firstMatch returns the first entry (by sequence-id) of an ACL set that
// matches a TCP packet, and whether it drops it.
func firstMatch(set map[string]any, src, dst netip.Addr, sport, dport int) (any, bool, bool) {
	l := slices.Clone(yang.Entries(set["acl-entries"], "acl-entries", "acl-entry"))
	slices.SortStableFunc(l, func(a, b any) int {
		x, _ := yang.Member(a, "sequence-id").(float64)
		y, _ := yang.Member(b, "sequence-id").(float64)
		return cmp.Compare(x, y)
	})
	for _, e := range l {
		em := yang.Object(e)
		var ic map[string]any
		for _, fam := range []string{"ipv4", "ipv6"} {
			if f := yang.Object(em[fam]); f != nil {
				ic = yang.Object(f["config"])
			}
		}
		if p := yang.String(ic["protocol"]); p != "" && !strings.HasSuffix(p, "IP_TCP") && p != "6" {
			continue
		}
		if !matchPrefix(yang.String(ic["source-address"]), src) || !matchPrefix(yang.String(ic["destination-address"]), dst) {
			continue
		}
		tc := yang.Object(yang.Member(em, "transport", "config"))
		if !portMatch(tc["source-port"], sport) || !portMatch(tc["destination-port"], dport) {
			continue
		}
		a := yang.String(yang.Member(em, "actions", "config", "forwarding-action"))
		return em["sequence-id"], strings.HasSuffix(a, "DROP") || strings.HasSuffix(a, "REJECT"), true
	}
	return nil, false, false
}

// portMatch reports whether an entry's port (absent = any) matches port
// (0 = the packet's ephemeral port, which only "any" matches for sure).
func portMatch(v any, port int) bool {
	switch x := v.(type) {
	case nil:
		return true
	case float64:
		return port != 0 && int(x) == port
	case string:
		return x == "ANY" || port != 0 && x == fmt.Sprint(port)
	}
	return false
}

// bgpRound is the bgp-down runbook's round.
func (s *Server) bgpRound(rb *bgpRunbook) round {
	return round{description: "Step-by-step BGP session diagnosis",
		heading:  fmt.Sprintf("## BGP session down: neighbor %s", rb.peer),
		findings: rb.findings, step: rb.step, calls: rb.calls,
		keep: func() string { return s.bgpRunbooks.put(rb) }}
}

// bgpStep renders the findings so far and the next calls.
func (s *Server) bgpStep(rb *bgpRunbook, title string) (*mcp.GetPromptResult, error) {
	r := s.bgpRound(rb)
	r.title = title
	return s.roundResult(r)
}

// bgpComplete ends the diagnosis with its root cause.
func (s *Server) bgpComplete(rb *bgpRunbook, cause string) (*mcp.GetPromptResult, error) {
	rb.calls = nil
	r := s.bgpRound(rb)
	r.done, r.cause = true, cause
	return s.roundResult(r)
}
