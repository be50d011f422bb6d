// Package dialect is the contract between the simulated router driver
// (lab/sim) and the vendor CLIs it speaks, and the pieces those CLIs share.
//
// A Dialect is one vendor CLI: its operational commands (Commands), its
// configuration line parser (Parser: a table of rules per configuration
// mode), its running-configuration renderer (Render) and the wording of
// its log messages (Syslog). Each dialect lives in its own package
// (lab/sim/vrp, lab/sim/xr) and lab/sim picks one per device by name.
//
// The dialects share what this package provides besides the interface:
//   - Config, the device configuration a parser edits, with the helpers
//     that find or create its interfaces, VLANs, VRFs, ACLs, users, routes
//     and OSPF and BGP settings;
//   - Session, which applies configuration lines through a Parser's rule
//     table and keeps the stack of configuration modes;
//   - View, what one operational command reads (the device, its
//     configuration and the network model at one instant), with the
//     readers both dialects use (probes, ARP, LLDP, interface lookup);
//   - Routing, a snapshot of a device's OSPF and BGP state that the
//     routing show commands render.
package dialect
