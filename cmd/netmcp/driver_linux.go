package main

// The linux driver: `netmcp serve --device linux://` (this host) or
// `--device linux://NETNS` (a network namespace) runs real diagnostics.
import _ "github.com/netmcp/netmcp/device/linux"
