// Package xr is the simulator's Cisco IOS XR dialect ("cisco-iosxr"): its
// show commands (and a few IOS spellings), its configuration parser (with
// the IOS forms of addresses, routes, switchports and VLANs), its
// running-config renderer and the wording of its log messages. It
// implements dialect.Dialect; lab/sim serves it to the devices whose
// topology names the dialect, and to those that name none.
package xr
