package main

// The gNMI driver: `netmcp serve --device
// 'gnmi://HOST:PORT?ca-file=PATH&cert-file=PATH&key-file=PATH'` serves a
// device through gNMI: openconfig reads, writes through the candidate with
// the target's Commit extension where it has one, ON_CHANGE telemetry.
import _ "github.com/netmcp/netmcp/device/gnmi"
