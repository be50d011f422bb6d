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
// openconfig-lldp from lldpd (lldpcli -f json0). Two netmcp leaves are
// added: netmcp-linux-name (an interface's kernel name) and
// netmcp-last-error / netmcp-reason (FRR's own words for a BGP error or an
// OSPF state).
//
// # Configuration
//
// A namespace opened by URL (or OpenConfig) implements device.Configurer
// through a configstore.Store (state in device.Options.StateDir): one
// locked candidate, diff, validate, commit, confirmed commit, rollback and
// history, as the simulator. The host ("linux://", and any driver from
// Open) is read-only. The configuration tree holds the interfaces'
// config/mtu, config/enabled and subinterface 0's addresses
// (openconfig-interfaces, applied with netlink in the namespace) and, where
// FRR runs, FRR's running configuration as lines
// (/netmcp-frr:configuration/line). The running datastore is read live;
// the candidate is edited as YANG (Edit) or with FRR CLI lines (Configure,
// queued under /netmcp-frr:pending). Lines are checked (one line, no
// control character, no mode or file command), then by FRR's own check
// (vtysh --dryrun). A commit enters the pending lines through vtysh
// (argument vectors, never a shell), reads FRR's configuration back for
// the history, and the store's Apply hook changes FRR by block and the
// interfaces by netlink; anything refused puts back what was changed, so
// the store changes nothing (-32084 with FRR's or the kernel's words).
// Opened with a state directory, the driver makes the device run the
// store's running configuration (after a crash, the store rolled back an
// expired confirmed commit). Exec stays read-only.
//
// # Telemetry
//
// Every driver implements device.Telemetry (telemetry.go). CPU and Memory
// read /proc: the host's totals, and for a namespace the CPU time and
// memory (Pss) of its processes (found by the inode of /proc/PID/ns/net).
// Syslog serves a log of at most MaxLogEntries, fed from Open to Close by a
// netlink link subscription in the namespace (an interface's state change
// in IOS words under its alias: "%LINK-3-UPDOWN: Interface NAME, changed
// state to down", which the controller's flap check reads) and by FRR's
// daemons' log files (named by their "--log file:PATH" argument, read
// every FRRLogPoll). Subscribe delivers each new entry (EventSyslog) and
// each interface change (EventInterface). Crashinfo has one slot, "0",
// with no records.
package linux
