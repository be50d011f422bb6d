//go:build linux

package twin

import (
	"net/netip"
	"slices"
	"strings"
)

// Known is a documented difference between the simulated and the real
// lab: a fact on which they may disagree, and why.
type Known struct {
	ID     string
	Reason string
	// Match tells whether a disagreeing row is this difference.
	Match func(env *Env, row Row) bool
}

// KnownDifferences lists the documented differences (docs/twin.md).
var KnownDifferences = []Known{
	{
		ID: "vrf-global",
		Reason: "the real lab builds no VRFs (this kernel has no vrf devices): interfaces of a VRF are in the global table, " +
			"so their subnets are routed (r1 redistributes connected routes into OSPF) and hosts behind them answer, " +
			"where the simulator keeps them in the VRF",
		Match: func(env *Env, row Row) bool {
			switch row.Kind {
			case KindRoute, KindPing:
				return env.inVRF(row.Subject)
			case KindTrace:
				return env.inVRF(row.Subject) || mentionsVRF(env, row.Sim) || mentionsVRF(env, row.Real)
			}
			return false
		},
	},
	{
		ID: "ospf-down-listed",
		Reason: "when a neighbour goes away (the interface down, or a routing process stopped) the simulator keeps it " +
			"listed in state Down; FRR deletes a neighbour at once when its interface goes down, and at the dead " +
			"interval when it falls silent (show ip ospf neighbor lists no Down neighbour)",
		Match: func(_ *Env, row Row) bool {
			return row.Kind == KindOSPF && row.Sim == "Down" && row.Real == Absent
		},
	},
	{
		ID: "bgp-connect-active",
		Reason: "while its TCP connection fails (SYNs dropped), an FRR session alternates between Connect (a SYN " +
			"outstanding) and Active (waiting for the connect-retry timer, 2 s in the lab); the simulator shows Active throughout",
		Match: func(_ *Env, row Row) bool {
			ok := func(s string) bool { return s == "Active" || s == "Connect" }
			return row.Kind == KindBGPState && ok(row.Sim) && ok(row.Real)
		},
	},
	{
		ID: "icmp-acl-type",
		Reason: "the simulator's ACLs match ICMP as a whole (its ACL model has no ICMP type), so icmp_acl_block, built " +
			"there as an ACL denying icmp, also drops the echo replies and ICMP errors entering the interface; the real " +
			"lab's nftables rule drops only echo requests (the catalog's \"denies ICMP echo\")",
		Match: func(env *Env, row Row) bool {
			if !env.hasFault("icmp_acl_block") {
				return false
			}
			switch row.Kind {
			case KindPing:
				return row.Sim == "fail" && row.Real == "ok"
			case KindTrace:
				return strings.HasSuffix(row.Sim, "*") && !strings.HasSuffix(row.Real, "*")
			}
			return false
		},
	},
	{
		ID: "stopped-daemons-listed",
		Reason: "with its routing daemons stopped (frr_service_down) a router has no OSPF or BGP state in FRR (vtysh: " +
			"\"bgpd is not running\"); the simulator still lists its BGP neighbours (Idle) and OSPF neighbours (Down)",
		Match: func(env *Env, row Row) bool {
			return (row.Kind == KindBGPState || row.Kind == KindBGPError || row.Kind == KindOSPF) &&
				row.Real == Absent && env.faultOn("frr_service_down", row.Device)
		},
	},
	{
		ID: "bgp-nht-drop",
		Reason: "when the route to a BGP peer's address disappears (iBGP over loopbacks), FRR's session goes down " +
			"(at the hold timer's expiry here) and its last reset reads \"Waiting for NHT\" (reset code 27, no " +
			"notification recorded): next-hop tracking keeps it from reconnecting; the simulator reports \"Hold Timer Expired\"",
		Match: func(_ *Env, row Row) bool {
			return row.Kind == KindBGPError && row.Sim == "hold-timer-expired" && row.Real == "no-route"
		},
	},
	{
		ID: "ecmp-hash",
		Reason: "where equal-cost paths lead to a destination, both labs install them all, and each picks one per flow by " +
			"a hash of its addresses (Linux's default policy, layer 3); the kernel's hash key is random per boot " +
			"(net.ipv4.fib_multipath_hash_seed unset), so which path a traceroute takes differs between the labs " +
			"though both follow the simulator's routes hop by hop",
		Match: func(env *Env, row Row) bool {
			return row.Kind == KindTrace && silentTail(row.Sim) == silentTail(row.Real) &&
				env.followsRoutes(row.Device, row.Subject, row.Sim) && env.followsRoutes(row.Device, row.Subject, row.Real)
		},
	},
}

// followsRoutes tells whether a traceroute's hops from device to dst
// follow the simulator's routes: each answered hop a device that the
// previous one's active route to dst has as a next hop (the devices
// owning the next-hop addresses, resolved through the IGP when a BGP next
// hop is not adjacent, or dst's own device on a connected subnet). The
// trace either ends at dst or ends in silent hops past the last device
// that answers (a provider that does not answer, in both labs alike:
// the caller compares the silent tails).
func (e *Env) followsRoutes(device, dst, hops string) bool {
	to, err := netip.ParseAddr(dst)
	if err != nil || e.SimRoutes == nil {
		return false
	}
	hs := strings.Fields(hops)
	silent := silentTail(hops)
	answered := hs[:len(hs)-silent]
	if len(answered) == 0 || silent == 0 && answered[len(answered)-1] != dst {
		return false
	}
	cur := device
	for _, h := range answered {
		a, err := netip.ParseAddr(h)
		if err != nil {
			return false // a silent hop inside the path, or an error's mark
		}
		next := e.Owners[a]
		if next == "" || !slices.Contains(e.nextDevices(cur, to, 0), next) {
			return false
		}
		cur = next
	}
	return true
}

// silentTail counts the silent hops ("*") that end a traceroute's hops.
func silentTail(hops string) int {
	hs := strings.Fields(hops)
	n := 0
	for n < len(hs) && hs[len(hs)-1-n] == "*" {
		n++
	}
	return n
}

// maxRecursion bounds the resolution of next hops through other routes
// (a BGP next hop resolved by the IGP is one step).
const maxRecursion = 3

// nextDevices are the devices the simulator's active route of device to
// a forwards to. A next hop that is not on one of device's connected
// subnets (an iBGP next hop, a loopback) is resolved through device's own
// route to it, as the RIB resolves it, depth levels deep already.
func (e *Env) nextDevices(device string, a netip.Addr, depth int) []string {
	proto, nhs := e.activeRoute(device, a)
	if proto == "connected" {
		return []string{e.Owners[a]}
	}
	var out []string
	for _, nh := range strings.Split(nhs, ",") {
		addr, err := netip.ParseAddr(nh)
		if err != nil || e.Owners[addr] == "" {
			continue
		}
		if p, _ := e.activeRoute(device, addr); p == "connected" || depth >= maxRecursion {
			out = append(out, e.Owners[addr])
			continue
		}
		for _, d := range e.nextDevices(device, addr, depth+1) {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// activeRoute is the protocol and next hops (comma-separated) of the
// simulator's longest-prefix route of device to a.
func (e *Env) activeRoute(device string, a netip.Addr) (proto, nextHops string) {
	var best netip.Prefix
	value := ""
	for _, f := range e.SimRoutes {
		if f.Kind != KindRoute || f.Device != device {
			continue
		}
		p, err := netip.ParsePrefix(f.Subject)
		if err != nil || !p.Contains(a) || best.IsValid() && p.Bits() <= best.Bits() {
			continue
		}
		best, value = p, f.Value
	}
	proto, nextHops, _ = strings.Cut(value, " ")
	return proto, nextHops
}

// hasFault tells whether the scenario applies a fault of that name.
func (e *Env) hasFault(name string) bool {
	for _, f := range e.Faults {
		if f.Name == name {
			return true
		}
	}
	return false
}

// faultOn tells whether the scenario applies a fault of that name to the
// device (its target, or the device of its target interface).
func (e *Env) faultOn(name, device string) bool {
	for _, f := range e.Faults {
		if f.Name == name && (f.Target == device || strings.HasPrefix(f.Target, device+":")) {
			return true
		}
	}
	return false
}

// mentionsVRF tells whether a traceroute's hops show a VRF address.
func mentionsVRF(env *Env, hops string) bool {
	for _, h := range strings.Fields(hops) {
		if env.inVRF(h) {
			return true
		}
	}
	return false
}
