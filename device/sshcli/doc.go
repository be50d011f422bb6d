// Package sshcli is the ssh:// driver: a device reached over SSH and driven
// through its own CLI, for the boxes that speak nothing else.
//
//	ssh://USER@HOST[:PORT]?dialect=NAME&key-file=PATH&known-hosts=PATH
//
// One interactive session per device (github.com/scrapli/scrapligo v1, pure
// Go) with prompt detection and paging turned off on login; commands run
// one at a time, and a session interrupted mid-command (timeout, cancel, a
// dropped connection) is closed, never reused: the next command logs in
// again. The dialects (Dialects) are frr (vtysh), huawei-vrp, cisco-iosxr,
// cisco-iosxe and junos; each has its prompts, its paging command, the
// error markers of its output and its commit model: IOS-XR, VRP and Junos
// keep a candidate and apply it with "commit" (confirmed where the device
// has it), FRR and IOS-XE apply lines as entered and netmcp snapshots the
// running configuration to restore it on failure, rollback or an expired
// confirmed commit.
//
// YANG data: for frr, huawei-vrp and cisco-iosxr, show output is parsed
// into ietf-interfaces (with ietf-ip) and ietf-routing in the operational
// datastore, plus the openconfig-interfaces view of the interfaces
// (package device/ocview); cisco-iosxe and junos have no parser yet (Get
// of operational gives -32084). Running and candidate hold the
// configuration as printed, one line per entry, and the
// openconfig-interfaces view of its "interface NAME" blocks (names,
// descriptions, shutdown; not on junos, which prints braces). The one YANG
// edit taken is an interface's openconfig description, turned into the
// dialect's CLI lines; everything else is configured with CLI lines
// (Configure).
//
// Credentials are given only by reference (key-file, password-file,
// password-env); a password in the URL is refused, and the host key is
// checked against known-hosts unless insecure-ignore-host-key is set.
//
// Tests run against FRR's vtysh behind a real OpenSSH server (root), and
// against the simulator's huawei-vrp and cisco-iosxr over real SSH
// (package lab/sim/simssh, which `netmcp lab up --ssh` also serves),
// including the shared driver table (device/drivertest). cisco-iosxe and
// junos are untested: no server for them runs here.
package sshcli
