// Package suite generates fault suites on generated networks (package
// gen): on each network, one case for every fault name the simulator
// builds, on a target chosen at random across the network (backbone and
// access routers, shared LANs, router-host links, the links to the
// providers), pairs of simultaneous faults, and healthy cases.
//
// Every case carries its ground truth in the NIKA benchmark's terms
// (is_anomaly, faulty_devices, root_cause_name), by these conventions: a
// fault on a link (down, flap, corruption, throttling, latency) names both
// ends of the link, a router-host link too; an interface or configuration
// fault (an ACL, an MTU, OSPF interface settings, link_detach) names the
// device that holds it; an address or MAC conflict names the host that
// took the other's address, not its rightful owner; simultaneous faults
// name the union.
//
// Generate checks every case in the simulator before keeping it: its
// faults inject without error and leave a visible symptom (a check of
// gen.Checker that passed on the healthy network fails, answers
// differently or takes much longer). A fault name that no target tried
// makes visible is reported in Suite.Unseen rather than kept as a case
// no diagnosis could be expected to find.
//
// A Suite is plain data, written and read as YAML or JSON (Write, Read);
// a case names its network by gen.Options, so the file stays small and
// Case.Topology rebuilds the network with the case's faults.
package suite
