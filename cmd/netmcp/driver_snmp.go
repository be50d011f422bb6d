package main

// The snmp driver: `netmcp serve --device 'snmp://HOST?version=2c&community-file=PATH'`
// (or version=3 with auth-file/priv-file) serves a device read through its
// SNMP agent: interfaces, addresses, routes, CPU and memory, read-only.
import _ "github.com/netmcp/netmcp/device/snmp"
