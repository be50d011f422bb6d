package twin

import "strings"

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
