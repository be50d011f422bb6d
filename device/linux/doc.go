// Package linux is the device driver of a Linux host ("linux://") or of a
// network namespace on it ("linux://NETNS"), registered under the scheme
// "linux".
//
// It runs the real diagnostic binaries (ping, traceroute, tracepath, dig)
// through diag.Run, with an argument vector and never a shell (inside a
// namespace, prefixed with "ip netns exec NETNS"), and a few read-only
// iproute2 commands and cat /etc/resolv.conf chosen from fixed names
// (ExecCommands). Where FRR runs
// (its sockets in FRRRunDir/NETNS) the CLI dialect is "frr" and Exec also
// runs vtysh "show" commands, restricted to plain words.
//
// Get serves the live state, read on each call, under the simulator's
// YANG paths: openconfig-interfaces from netlink (an interface is named
// by its alias when it has one: the real lab sets it to the topology's
// name), ietf-routing RIBs from FRR (else the kernel's main table),
// openconfig-network-instance OSPF and BGP from vtysh JSON,
// openconfig-acl from nftables (nft -j list ruleset: an ACL set per
// table, interface and direction, the chain's policy as its last entry;
// rules an ACL cannot say, such as numgen, are left out) and
// openconfig-lldp from lldpd (lldpcli -f json0). The running and
// operational datastores both read this live state; configuration
// through FRR is not served yet. Two netmcp leaves are added:
// netmcp-linux-name (an interface's kernel name) and netmcp-last-error /
// netmcp-reason (FRR's own words for a BGP error or an OSPF state).
package linux
