package main

// The netconf driver: `netmcp serve --device
// 'netconf://USER@HOST:830?key-file=PATH&known-hosts=PATH'` serves a device
// through its NETCONF server over SSH: YANG reads, and edits through the
// candidate with native confirmed commits.
import _ "github.com/netmcp/netmcp/device/netconf"
