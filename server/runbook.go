package server

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/internal/lazyre"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// runbook is the state of one ping-failure diagnosis between prompts/get calls.
type runbook struct {
	src, dst, vrf string
	step          int        // next analysis to run (1 = ARP result due)
	calls         []toolCall // the calls whose results are due
	arpOK         bool
	outIf         string
	nextHop       string // set when the outgoing interface must be found from the next hop
	remote        bool   // the route has a next hop: dst is not on a connected subnet
	findings      []string
}

// contextStore keeps the state of a multi-round prompt (a runbook) by its
// context id for runbookTTL; a round takes it out and the next round's
// state is put back under a new id.
type contextStore[T any] struct {
	mu     sync.Mutex
	prefix string // of the ids: "ctx-", "ctx-bgp-"
	m      map[string]contextEntry[T]
}

// contextEntry is one kept state and when it expires.
type contextEntry[T any] struct {
	v       *T
	expires time.Time
}

// runbookTTL is how long a runbook waits for its next round.
const runbookTTL = 30 * time.Minute

func newContextStore[T any](prefix string) *contextStore[T] {
	return &contextStore[T]{prefix: prefix, m: map[string]contextEntry[T]{}}
}

// put keeps v and returns its new context id; expired states are dropped.
func (st *contextStore[T]) put(v *T) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := time.Now()
	for id, e := range st.m {
		if now.After(e.expires) {
			delete(st.m, id)
		}
	}
	id := st.prefix + rand.Text()[:16]
	st.m[id] = contextEntry[T]{v: v, expires: now.Add(runbookTTL)}
	return id
}

// take removes and returns the state of id, if it has not expired.
func (st *contextStore[T]) take(id string) (*T, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	e, ok := st.m[id]
	delete(st.m, id)
	return e.v, ok && time.Now().Before(e.expires)
}

// pingFailPrompt is network.troubleshoot.ping-fail: a working runbook.
// The first call returns the ARP check of MCP-NET 8.3; each follow-up
// (previousContextId + results) analyses the results of the previous
// calls, reading the device itself for any result not given, and returns
// the next calls until "Diagnosis complete" names the root cause.
func (s *Server) pingFailPrompt(ctx context.Context, req *mcp.GetPromptRequest, args map[string]string) (*mcp.GetPromptResult, error) {
	prev := args["previousContextId"]
	if prev == "" {
		prev = metaString(req.Params.Meta, "previousContextId")
	}
	var rb *runbook
	if prev == "" {
		src, dst := strings.TrimSpace(args["src"]), strings.TrimSpace(args["dst"])
		if _, err := netip.ParseAddr(dst); err != nil {
			return nil, invalidParams("%s: dst %q is not an IP address", netproto.PromptPingFail, dst)
		}
		rb = &runbook{src: src, dst: dst, vrf: strings.TrimSpace(args["vrf"]), step: 1}
		rb.calls = []toolCall{s.call(netproto.ToolCLIExec, map[string]any{"cmd": rb.arpCommand()})}
		return s.stepResult(rb, "Check local ARP")
	}
	rb, ok := s.runbooks.take(prev)
	if !ok {
		return nil, invalidParams("%s: unknown or expired previousContextId %q; start again without it", netproto.PromptPingFail, prev)
	}
	results, err := parseResults(args["results"])
	if err != nil {
		return nil, err
	}
	outputs := make([]any, len(rb.calls))
	for i, c := range rb.calls {
		if i < len(results) && results[i] != nil {
			outputs[i] = results[i]
			continue
		}
		outputs[i] = s.readFor(ctx, c) // not given: read the device ourselves
	}
	return s.advance(ctx, rb, outputs)
}

func (rb *runbook) arpCommand() string {
	if rb.vrf != "" {
		return fmt.Sprintf("show ip arp vrf %s %s", rb.vrf, rb.dst)
	}
	return "show ip arp " + rb.dst
}

func (rb *runbook) vrfLabel() string {
	if rb.vrf == "" {
		return ""
	}
	return " (VRF " + rb.vrf + ")"
}

// parseResults decodes the "results" argument: a JSON array, one element
// per tool call, each a string, a structuredContent object or a whole
// CallToolResult.
func parseResults(raw string) ([]any, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, nil
	}
	var l []any
	if err := json.Unmarshal([]byte(raw), &l); err != nil {
		var one any
		if json.Unmarshal([]byte(raw), &one) != nil {
			return nil, invalidParams("%s: results must be a JSON array of the tool results: %v", netproto.PromptPingFail, err)
		}
		l = []any{one}
	}
	for i, r := range l {
		if m, ok := r.(map[string]any); ok {
			if sc, ok := m["structuredContent"]; ok {
				r = sc
			} else if c, ok := m["content"].([]any); ok && len(c) > 0 {
				if t, ok := c[0].(map[string]any); ok {
					r = t["text"]
				}
			}
		}
		if m, ok := r.(map[string]any); ok {
			if o, ok := m["stdout"]; ok {
				r = o
			} else if d, ok := m["data"]; ok {
				r = d
			}
		}
		l[i] = r
	}
	return l, nil
}

// readFor performs a read-only tool call against the driver.
func (s *Server) readFor(ctx context.Context, c toolCall) any {
	switch c.Tool {
	case s.toolName(netproto.ToolCLIExec):
		cmd, _ := c.Arguments["cmd"].(string)
		out, err := s.drv.Exec(ctx, cmd)
		if err != nil {
			return "% " + err.Error()
		}
		return out
	case s.toolName(netproto.ToolYangGet):
		path, _ := c.Arguments["path"].(string)
		ds, _ := c.Arguments["datastore"].(string)
		if ds == "" {
			ds = "operational"
		}
		v, err := s.drv.Get(ctx, device.Datastore(ds), path)
		if err != nil {
			return nil
		}
		return v
	}
	return nil
}

var macRe = lazyre.New(`(?i)\b([0-9a-f]{2}[:-]){5}[0-9a-f]{2}\b|\b([0-9a-f]{4}\.){2}[0-9a-f]{4}\b`)

// advance analyses the outputs of the current step and returns the next.
func (s *Server) advance(ctx context.Context, rb *runbook, out []any) (*mcp.GetPromptResult, error) {
	dst, _ := netip.ParseAddr(rb.dst)
	switch rb.step {
	case 1: // ARP
		text, _ := out[0].(string)
		for _, line := range strings.Split(text, "\n") {
			f := strings.Fields(line)
			if slices.Contains(f, rb.dst) && macRe.Re().MatchString(line) && !strings.Contains(strings.ToLower(line), "incomplete") {
				rb.arpOK = true
				if last := f[len(f)-1]; !macRe.Re().MatchString(last) && last != rb.dst {
					rb.outIf = last
				}
			}
		}
		if rb.arpOK {
			rb.findings = append(rb.findings, fmt.Sprintf("ARP entry for %s is present%s.", rb.dst, ifLabel(rb.outIf)))
		} else {
			rb.findings = append(rb.findings, fmt.Sprintf("No ARP entry for %s.", rb.dst))
		}
		rb.step = 2
		rb.calls = []toolCall{s.call(netproto.ToolYangGet, map[string]any{"path": pathRIBs, "datastore": "operational"})}
		return s.stepResult(rb, "Check the route to "+rb.dst)
	case 2: // RIB
		r, ok := lookupRoute(out[0], rb.vrf, dst, true)
		if !ok {
			// An inactive route tells why there is none: its next hop is
			// behind an interface that went down, for one.
			ir, found := lookupRoute(out[0], rb.vrf, dst, false)
			if !found || ir.nextHop == "" {
				return s.complete(rb, fmt.Sprintf("missing route: no active route to %s in %s", rb.dst, ribLabel(rb.vrf)))
			}
			rb.findings = append(rb.findings, fmt.Sprintf("Route %s via %s is inactive: its next hop is not reachable.", ir.prefix, ir.nextHop))
			r = ir
		} else {
			if r.special != "" && r.special != "receive" {
				return s.complete(rb, fmt.Sprintf("missing route: traffic to %s matches the discard route %s (%s) in %s", rb.dst, r.prefix, r.special, ribLabel(rb.vrf)))
			}
			rb.findings = append(rb.findings, fmt.Sprintf("Route %s via %s.", r.prefix, cmp.Or(r.nextHop, r.outIf, "(connected)")))
		}
		rb.remote = r.nextHop != ""
		if rb.outIf == "" {
			rb.outIf = r.outIf
		}
		rb.step = 3
		if rb.outIf == "" {
			if r.nextHop == "" {
				return s.complete(rb, fmt.Sprintf("the route %s to %s has neither an outgoing interface nor a next hop", r.prefix, rb.dst))
			}
			rb.nextHop = r.nextHop
			rb.calls = []toolCall{s.call(netproto.ToolYangGet, map[string]any{"path": pathInterfaces, "datastore": "operational"})}
			return s.stepResult(rb, "Find the interface toward next hop "+r.nextHop)
		}
		rb.calls = []toolCall{s.call(netproto.ToolYangGet, map[string]any{
			"path": fmt.Sprintf("%s/interface[name=%s]", pathInterfaces, quoteKey(rb.outIf)), "datastore": "operational"})}
		return s.stepResult(rb, "Verify outbound interface status")
	case 3: // interface
		entry := out[0]
		if rb.outIf == "" {
			nh, _ := netip.ParseAddr(rb.nextHop)
			name, e, ok := interfaceForAddress(out[0], nh)
			if !ok {
				return s.complete(rb, fmt.Sprintf("missing route: next hop %s is on no connected subnet of this device", rb.nextHop))
			}
			rb.outIf, entry = name, e
			rb.findings = append(rb.findings, fmt.Sprintf("Next hop %s is on the subnet of %s.", rb.nextHop, name))
		}
		admin, oper := ifStatus(entry)
		if admin == "DOWN" {
			return s.complete(rb, fmt.Sprintf("interface down: %s is administratively down (admin-status DOWN)", rb.outIf))
		}
		if oper != "" && oper != "UP" {
			return s.complete(rb, fmt.Sprintf("interface down: %s is up administratively but oper-status is %s", rb.outIf, oper))
		}
		rb.findings = append(rb.findings, fmt.Sprintf("Interface %s is up (admin %s, oper %s).", rb.outIf, cmp.Or(admin, "?"), cmp.Or(oper, "?")))
		rb.step = 4
		rb.calls = []toolCall{s.call(netproto.ToolYangGet, map[string]any{"path": "/openconfig-acl:acl", "datastore": "running"})}
		return s.stepResult(rb, "Check the ACLs applied to "+rb.outIf)
	case 4: // ACL
		src, _ := netip.ParseAddr(rb.src)
		if acl, seq, ok := droppingACL(out[0], rb.outIf, src, dst); ok {
			return s.complete(rb, fmt.Sprintf("ACL that drops: %s entry %v on %s discards traffic between %s and %s", acl, seq, rb.outIf, rb.src, rb.dst))
		}
		rb.findings = append(rb.findings, "No ACL on "+rb.outIf+" drops this traffic.")
		if !rb.arpOK && !rb.remote {
			return s.complete(rb, fmt.Sprintf("no ARP entry: %s does not answer ARP on %s (host down, wrong subnet or layer-2 problem)", rb.dst, rb.outIf))
		}
		return s.complete(rb, fmt.Sprintf("no fault found on this device for %s → %s: ARP, route, interface and ACLs are fine; check the destination host and the return path", rb.src, rb.dst))
	}
	return nil, invalidParams("%s: the diagnosis is already complete", netproto.PromptPingFail)
}

func ifLabel(i string) string {
	if i == "" {
		return ""
	}
	return " on " + i
}

func ribLabel(vrf string) string {
	if vrf == "" {
		return "the global routing table"
	}
	return "VRF " + vrf
}

// round is one round of a runbook prompt as it is rendered: the heading
// and findings so far, then either the next step's calls or, once done,
// the root cause.
type round struct {
	description string // the prompt result's description
	heading     string // "## ..." line of the diagnosis
	findings    []string
	step        int
	title       string // of the next step (not done)
	calls       []toolCall
	done        bool
	cause       string
	// keep stores the runbook for its next round and returns its context id.
	keep func() string
}

// roundResult renders a round in markdown with its _meta: the calls to
// make (toolCalls), and the context id of the next round or, once done,
// diagnosisComplete and the rootCause.
func (s *Server) roundResult(r round) (*mcp.GetPromptResult, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", r.heading)
	for _, f := range r.findings {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	if len(r.findings) > 0 {
		b.WriteByte('\n')
	}
	calls := r.calls
	if r.done {
		fmt.Fprintf(&b, "**Root cause:** %s\n\nDiagnosis complete.", r.cause)
		calls = nil
	} else {
		fmt.Fprintf(&b, "%d. %s:\n", r.step, r.title)
		for _, c := range calls {
			fmt.Fprintf(&b, "   %s\n", s.inline(c))
		}
	}
	if calls == nil {
		calls = []toolCall{}
	}
	meta := mcp.Meta{"toolCalls": calls}
	if r.done {
		meta["diagnosisComplete"] = true
		meta["rootCause"] = r.cause
	} else {
		meta["contextId"] = r.keep()
	}
	return promptResult(r.description, strings.TrimRight(b.String(), "\n"), meta), nil
}

// pingRound is the ping-fail runbook's round.
func (s *Server) pingRound(rb *runbook) round {
	return round{description: "Step-by-step ping failure diagnosis",
		heading:  fmt.Sprintf("## Ping failure: %s → %s%s", rb.src, rb.dst, rb.vrfLabel()),
		findings: rb.findings, step: rb.step, calls: rb.calls,
		keep: func() string { return s.runbooks.put(rb) }}
}

// stepResult renders the findings so far and the next calls.
func (s *Server) stepResult(rb *runbook, title string) (*mcp.GetPromptResult, error) {
	r := s.pingRound(rb)
	r.title = title
	return s.roundResult(r)
}

// complete ends the diagnosis with its root cause.
func (s *Server) complete(rb *runbook, cause string) (*mcp.GetPromptResult, error) {
	rb.calls = nil
	r := s.pingRound(rb)
	r.done, r.cause = true, cause
	return s.roundResult(r)
}

type route struct {
	prefix, nextHop, outIf string
	special                string // special-next-hop: blackhole, unreachable, prohibit, receive
}

// lookupRoute finds the longest prefix covering dst in the RIB of vrf
// ("<vrf>-ipv4", or "ipv4-master" for the global table) among the active
// routes (active true) or the inactive ones (active false). RFC 7951 encodes
// ietf-routing's "active" empty leaf as [null] when set and leaves it out
// otherwise; a RIB in which no route carries the leaf is taken as all active.
func lookupRoute(ribs any, vrf string, dst netip.Addr, active bool) (route, bool) {
	want := "ipv4-master"
	if dst.Is6() {
		want = "ipv6-master"
	}
	if vrf != "" {
		want = vrf + "-ipv" + map[bool]string{true: "6", false: "4"}[dst.Is6()]
	}
	best, bestLen := route{}, -1
	for _, r := range yang.Entries(ribs, "ietf-routing:ribs", "rib") {
		m := yang.Object(r)
		if m["name"] != want {
			continue
		}
		routes := yang.Entries(m["routes"], "routes", "route")
		marked := false
		for _, e := range routes {
			if rt := yang.Object(e); rt != nil {
				if _, ok := rt["active"]; ok {
					marked = true
					break
				}
			}
		}
		for _, e := range routes {
			rt := yang.Object(e)
			p, err := netip.ParsePrefix(fmt.Sprint(rt["destination-prefix"]))
			if err != nil || !p.Contains(dst) || p.Bits() <= bestLen || routeActive(rt, marked) != active {
				continue
			}
			nh := yang.Object(rt["next-hop"])
			if hops := yang.Entries(nh, "next-hop-list", "next-hop"); len(hops) > 0 {
				nh = yang.Object(hops[0]) // a multipath route: its first next hop
			}
			best = route{prefix: p.String(), nextHop: yang.String(nh["next-hop-address"]), outIf: yang.String(nh["outgoing-interface"]), special: yang.String(nh["special-next-hop"])}
			bestLen = p.Bits()
		}
	}
	return best, bestLen >= 0
}

// routeActive reads the "active" leaf of a RIB route.
func routeActive(rt map[string]any, marked bool) bool {
	v, ok := rt["active"]
	if !marked {
		return true
	}
	return ok && v != false
}

// interfaceForAddress finds the interface whose IPv4 or IPv6 subnet holds
// addr in an openconfig-interfaces tree, and returns its name and entry.
func interfaceForAddress(ifs any, addr netip.Addr) (string, any, bool) {
	for _, i := range yang.Entries(ifs, "openconfig-interfaces:interfaces", "interface") {
		im := yang.Object(i)
		for _, sub := range yang.Entries(im["subinterfaces"], "subinterfaces", "subinterface") {
			sm := yang.Object(sub)
			cfg := yang.Object(sm["config"])
			for _, fam := range []any{sm["ipv4"], sm["ipv6"], sm["openconfig-if-ip:ipv4"], sm["openconfig-if-ip:ipv6"], cfg["ipv4"]} {
				for _, a := range yang.Entries(yang.Member(fam, "addresses"), "addresses", "address") {
					ac := yang.Object(yang.Member(a, "config"))
					ip, err := netip.ParseAddr(yang.String(ac["ip"]))
					length, ok := ac["prefix-length"].(float64)
					if err != nil || !ok {
						continue
					}
					if p, err := ip.Prefix(int(length)); err == nil && p.Contains(addr) {
						return yang.String(im["name"]), im, true
					}
				}
			}
		}
	}
	return "", nil, false
}

// ifStatus reads admin-status and oper-status from an interface entry.
func ifStatus(v any) (admin, oper string) {
	if l, ok := v.([]any); ok && len(l) > 0 {
		v = l[0]
	}
	m := yang.Object(v)
	if in, ok := m["openconfig-interfaces:interface"]; ok {
		return ifStatus(in)
	}
	if l := yang.Entries(m, "openconfig-interfaces:interfaces", "interface"); len(l) > 0 && m["state"] == nil {
		return ifStatus(l[0])
	}
	st := yang.Object(m["state"])
	return strings.ToUpper(yang.String(st["admin-status"])), strings.ToUpper(yang.String(st["oper-status"]))
}

// droppingACL finds an ACL bound to ifname whose DROP/REJECT entry matches
// traffic from src to dst (or back).
func droppingACL(acl any, ifname string, src, dst netip.Addr) (string, any, bool) {
	m := aclRoot(acl)
	bound := boundACLSets(m, func(id any) bool { return id == ifname })
	for _, set := range yang.Entries(m["acl-sets"], "acl-sets", "acl-set") {
		sm := yang.Object(set)
		name := yang.String(sm["name"])
		if !bound[name] {
			continue
		}
		for _, e := range yang.Entries(sm["acl-entries"], "acl-entries", "acl-entry") {
			em := yang.Object(e)
			if a := yang.String(yang.Member(em, "actions", "config", "forwarding-action")); a != "DROP" && a != "REJECT" && !strings.HasSuffix(a, ":DROP") && !strings.HasSuffix(a, ":REJECT") {
				continue
			}
			ic := yang.Object(yang.Member(em, "ipv4", "config"))
			from, to := yang.String(ic["source-address"]), yang.String(ic["destination-address"])
			if matchPrefix(from, src) && matchPrefix(to, dst) || matchPrefix(from, dst) && matchPrefix(to, src) {
				return name, em["sequence-id"], true
			}
		}
	}
	return "", nil, false
}

// aclRoot returns the contents of an openconfig-acl tree, given with or
// without its "openconfig-acl:acl" container.
func aclRoot(acl any) map[string]any {
	m := yang.Object(acl)
	if in, ok := m["openconfig-acl:acl"]; ok {
		m = yang.Object(in)
	}
	return m
}

// boundACLSets returns the names of the ACL sets bound (ingress or egress)
// to the interfaces of an openconfig-acl tree whose id use accepts.
func boundACLSets(m map[string]any, use func(id any) bool) map[string]bool {
	bound := map[string]bool{}
	for _, i := range yang.Entries(m["interfaces"], "interfaces", "interface") {
		im := yang.Object(i)
		if !use(im["id"]) {
			continue
		}
		for _, dir := range []string{"ingress-acl-sets", "egress-acl-sets"} {
			for _, set := range yang.Entries(im[dir], dir, strings.TrimSuffix(dir, "s")) {
				bound[yang.String(yang.Member(set, "set-name"))] = true
			}
		}
	}
	return bound
}

// matchPrefix reports whether a (possibly empty = any) prefix contains a.
func matchPrefix(p string, a netip.Addr) bool {
	if p == "" {
		return true
	}
	pf, err := netip.ParsePrefix(p)
	if err != nil {
		if x, err := netip.ParseAddr(p); err == nil {
			return !a.IsValid() || x == a
		}
		return false
	}
	return !a.IsValid() || pf.Contains(a)
}
