// Package twin holds the twin check: one topology built twice,
// as the simulator's model (package lab/sim) and as a real lab of FRR
// in network namespaces (package lab/real), with the same faults
// applied to both, and the two compared fact by fact.
//
// A fact is one answer both labs give: an OSPF neighbour's state on an
// interface, a BGP session's state and the class of its last error, the
// active IPv4 route of a prefix (protocol and next hops), whether a ping
// between two routers' loopbacks (or from a router to a host) succeeds,
// and the addresses a traceroute shows hop by hop. Facts are keyed by the
// topology's names (interfaces as the topology spells them), so that a
// difference reads the same on both sides.
//
// A difference is either a bug (of the simulator, or of the real lab's
// build) or a documented known difference: Known lists them, each with
// the reason, and Compare marks the differences they explain. The
// command `netmcp lab compare` runs the check and exits 1 on any other
// difference; docs/twin.md describes the method and the differences found.
package twin
