//go:build linux

package twin

import (
	"fmt"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// simProtocols names the simulator's route protocols as FRR does.
var simProtocols = map[string]string{"direct": "connected", "static": "static", netsim.ProtoOSPF: "ospf", netsim.ProtoBGP: "bgp"}

// SimControl reads the control-plane facts (OSPF, BGP, routes) of every
// router from the simulator's model.
func SimControl(n *netsim.Network, env *Env) (Facts, error) {
	fs := Facts{}
	for _, r := range env.Routers {
		o, err := n.OSPF(r)
		if err != nil {
			return nil, err
		}
		for _, nb := range o.Neighbors {
			fs.Add(KindOSPF, r, nb.Interface+" "+nb.NeighborID.String(), nb.State)
		}
		b, err := n.BGP(r)
		if err != nil {
			return nil, err
		}
		for _, nb := range b.Neighbors {
			if !nb.Address.Is4() {
				continue
			}
			fs.Add(KindBGPState, r, nb.Address.String(), nb.State)
			fs.Add(KindBGPError, r, nb.Address.String(), errorClass(nb.State, nb.LastError))
		}
		routes, err := n.Routes(r, "", 4)
		if err != nil {
			return nil, err
		}
		byPrefix := map[string][]string{}
		proto := map[string]string{}
		for _, rt := range routes {
			if !rt.Active {
				continue
			}
			p := rt.Prefix.String()
			proto[p] = simProtocols[rt.Protocol]
			if proto[p] == "" {
				proto[p] = rt.Protocol
			}
			byPrefix[p] = append(byPrefix[p], simNextHop(rt))
		}
		for p, nhs := range byPrefix {
			fs.Add(KindRoute, r, p, routeValue(proto[p], nhs))
		}
	}
	return fs, nil
}

// simNextHop is a route's next hop as the fact shows it: the address, the
// interface of a connected route, or "blackhole".
func simNextHop(rt netsim.Route) string {
	switch {
	case rt.Discard:
		return "blackhole"
	case rt.NextHop.IsValid():
		return rt.NextHop.String()
	default:
		return rt.Interface
	}
}

// routeValue is "PROTOCOL NH[,NH]" with the next hops sorted.
func routeValue(proto string, nhs []string) string {
	slices.Sort(nhs)
	nhs = slices.Compact(nhs)
	return proto + " " + strings.Join(nhs, ",")
}

// SimProbes runs every probe of env in the simulator: one echo request
// per ping, one probe per hop for traceroute.
func SimProbes(n *netsim.Network, env *Env) (Facts, error) {
	fs := Facts{}
	for _, p := range env.Probes() {
		po, err := n.Ping(netsim.ProbeRequest{From: p.From, Destination: p.To, Count: 1})
		if err != nil {
			return nil, fmt.Errorf("ping %s -> %s: %w", p.From, p.To, err)
		}
		ok := "fail"
		for _, r := range po.Replies {
			if r.Kind == netsim.ResultReply {
				ok = "ok"
			}
		}
		fs.Add(KindPing, p.From, p.To.String(), ok)
		to, err := n.Traceroute(netsim.ProbeRequest{From: p.From, Destination: p.To, Count: 1, MaxHops: MaxHops})
		if err != nil {
			return nil, fmt.Errorf("traceroute %s -> %s: %w", p.From, p.To, err)
		}
		fs.Add(KindTrace, p.From, p.To.String(), simTrace(to))
	}
	return fs, nil
}

// MaxHops bounds the traceroutes of the check.
const MaxHops = 8

// simTrace writes a traceroute's hops: each hop's answering address with
// traceroute's mark of an error (!H, !N, !F), "*" for silence; trailing
// silent hops are cut to one "*" (they depend only on the hop limit).
func simTrace(o netsim.TraceOutcome) string {
	if o.Error != "" {
		return "unreachable"
	}
	var hops []string
	for _, h := range o.Hops {
		s := "*"
		for _, p := range h.Probes {
			if p.From.IsValid() {
				s = p.From.String() + traceMark(p.Kind)
				break
			}
		}
		hops = append(hops, s)
	}
	return joinHops(hops)
}

// traceMark is traceroute's annotation of an answer kind.
func traceMark(kind string) string {
	switch kind {
	case netsim.ResultHostUnreachable:
		return " !H"
	case netsim.ResultNetUnreachable:
		return " !N"
	case netsim.ResultFragNeeded:
		return " !F"
	}
	return ""
}

// joinHops joins hops, ending a run of trailing "*" with one.
func joinHops(hops []string) string {
	for len(hops) > 1 && hops[len(hops)-1] == "*" && hops[len(hops)-2] == "*" {
		hops = hops[:len(hops)-1]
	}
	return strings.Join(hops, " ")
}
