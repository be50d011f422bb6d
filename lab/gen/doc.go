// Package gen generates lab networks: seeded topologies of 4 to 60
// routers in one of five shapes (ring, mesh, multi-as, fabric,
// hub-spoke), in either CLI dialect or both, written as the lab's
// topology format (package topology) so that the simulator and the real
// lab build them alike.
//
// Every generated network has the same ingredients, arranged by its
// shape: OSPF with a backbone area and non-backbone areas on area border
// routers, iBGP inside each autonomous system and eBGP between systems
// and to one or two upstream providers, LANs of one to four hosts (some
// behind a VLAN interface), and DNS and web servers on LANs of their own,
// so that every client's traffic to a service crosses the network.
//
// Generate is a pure function of its Options: the same options give the
// same topology, byte for byte once written as YAML. Verify builds a
// network in the simulator and checks it healthy (every OSPF adjacency
// Full, every BGP session Established, every link answering both ways,
// every host reaching every service by ping and DNS); Checker is that
// check, reusable on a running lab to tell what a fault changed.
package gen
