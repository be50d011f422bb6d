package main

// The SSH CLI driver: `netmcp serve --device
// 'ssh://USER@HOST:PORT?dialect=frr&key-file=PATH&known-hosts=PATH'` drives
// a vendor CLI (frr, huawei-vrp, cisco-iosxr, cisco-iosxe, junos) over SSH.
import _ "github.com/netmcp/netmcp/device/sshcli"
