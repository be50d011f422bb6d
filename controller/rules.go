package controller

import "github.com/netmcp/netmcp/netproto"

// A rule is one diagnosis rule of the sweep: a check of the network as
// read that adds the root causes it finds to the report. The sweep runs
// sweepRules in their order; a rule leaves alone what an earlier one
// explains (it reads the causes found so far and what earlier rules left
// in the sweepState), so the order is part of the diagnosis.
type rule struct {
	// name is the rule's name in docs/controller.md.
	name string
	// step, when set, opens a step of the plan before the rule runs.
	step string
	// applies tells whether the network has anything for the rule to
	// check (nil: always); a rule that does not apply opens no step.
	applies func(r *run, s *sweepState) bool
	// check runs the rule.
	check func(r *run, s *sweepState)
}

// sweepState is the network a sweep checks and what its rules pass on.
type sweepState struct {
	n *network
	// up are the links up at both ends (link-state), which link-loss
	// probes.
	up []link
	// dead are the routers whose routing daemons are down, with their
	// number of sessions and adjacencies (routing-daemon), which
	// ospf-adjacency and bgp-session leave alone.
	dead map[string]int
	// hostsDone are the hosts host-config named a cause on, which
	// host-reach leaves alone.
	hostsDone map[string]bool
	// mesh is the first look's reachability matrix (pingmesh), nil
	// when it was not measured.
	mesh *Pingmesh
}

// sweepRules are the sweep's rules, in the order they run.
var sweepRules = []rule{
	{name: "pingmesh", step: "first look: ping between every host and router loopback (pingmesh)",
		applies: func(r *run, s *sweepState) bool { return r.c.SweepMesh && len(r.meshTargets(s.n)) > 1 },
		check:   (*run).firstLook},
	{name: "link-state", step: "check every link: state of both ends, their logged history, MTU, ACLs",
		check: (*run).linkState},
	{name: "acl",
		check: func(r *run, s *sweepState) { r.aclSweep(s.n) }},
	{name: "link-loss", step: "probe every link for loss: ping the far end from both ends",
		check: (*run).linkLoss},
	{name: "routing-daemon", step: "check every BGP session and OSPF adjacency",
		applies: routes, check: (*run).routingDaemons},
	{name: "ospf-adjacency",
		applies: routes, check: (*run).ospfAdjacencies},
	{name: "bgp-session",
		applies: routes, check: (*run).bgpSessions},
	{name: "bgp-advertisement",
		applies: routes, check: func(r *run, s *sweepState) { r.missingAdvertisements(s.n) }},
	{name: "host-config", step: "compare every host's own addresses, netmask, gateway, routes and MAC with its router's LAN",
		applies: func(r *run, s *sweepState) bool { return len(s.n.HostViews) > 0 },
		check:   func(r *run, s *sweepState) { s.hostsDone = r.hostChecks(s.n) }},
	{name: "host-link-mtu",
		applies: func(r *run, s *sweepState) bool { return len(s.n.HostViews) > 0 },
		check:   func(r *run, s *sweepState) { r.hostLinkMTUs(s.n) }},
	{name: "host-reach", step: "ping every known host from its own router and from a remote router",
		applies: func(r *run, s *sweepState) bool { return len(s.n.Hosts) > 0 },
		check:   func(r *run, s *sweepState) { r.hostSweep(s.n, s.hostsDone) }},
	{name: "dns", step: "resolve the devices' names from a router and from every host (" + netproto.ToolDNSLookup + ")",
		applies: func(r *run, s *sweepState) bool { return r.hasResolver(s.n) },
		check:   func(r *run, s *sweepState) { r.dnsSweep(s.n) }},
	{name: "unreadable",
		check: (*run).unreadDevices},
}

// routes tells whether the network runs BGP or OSPF.
func routes(_ *run, s *sweepState) bool { return anyRouting(s.n) }

// applyRules runs rules over the network n in order: each one that
// applies opens its step and checks.
func (r *run) applyRules(n *network, rules []rule) {
	s := &sweepState{n: n}
	for _, ru := range rules {
		if ru.applies != nil && !ru.applies(r, s) {
			continue
		}
		if ru.step != "" {
			r.begin(ru.step)
		}
		ru.check(r, s)
	}
}
