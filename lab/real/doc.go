// Package real builds a topology (package topology, the simulator's format)
// as a real network on this Linux host: one network namespace per device,
// veth pairs for the links, the interfaces' addresses, FRR (zebra, staticd,
// ospfd, bgpd) on every router configured from the topology's OSPF, BGP
// and static routes, lldpd with the devices' custom TLVs, hosts with their
// address, gateway and resolver, and unbound for a DNS service. Up builds
// it and waits for OSPF and BGP to converge; Close tears it down: every
// daemon is a child process that is signalled and waited for (PID 1 on the
// project's machines does not reap orphans), and every namespace deleted.
//
// The kernels this runs on here have neither dummy nor vrf devices, so
// the mapping is:
//   - a topology interface keeps its name as the Linux interface's alias
//     (ip link ... alias), and gets a Linux name of at most 15 characters
//     derived from it ("GigabitEthernet0/0/0/1" becomes "gi0-0-0-1");
//   - loopback interfaces (type softwareLoopback) put their addresses on
//     the namespace's "lo", whose alias is the first loopback's name;
//   - a VLAN interface (routed-vlan N) is a Linux bridge, and the
//     interfaces with access-vlan N are its ports;
//   - VRFs are not built: interfaces of a VRF stay in the global table and
//     the VRF's static routes are skipped; each such choice is a Note;
//   - an interface on no link is a veth whose peer stays down in a
//     separate namespace, so it is admin up and operationally down, as an
//     interface with no cable.
//
// Two steps of the build are the lab's own, so that it comes up in a few
// seconds and shows what the topology says (hello.go, lab.go): OSPF
// adjacencies form with one-second hellos, after which the topology's
// timers are set back, and lldpd runs in a UTS namespace named after the
// device and is configured through lldpcli's standard input once it has
// found its ports, then checked. Usage reports the daemons' memory.
//
// Up needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and the packages frr,
// lldpd, unbound and iproute2.
package real
