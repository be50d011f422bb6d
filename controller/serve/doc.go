// Package serve is the controller's MCP facade, what `netmcp controller
// serve` runs: a controller's whole fleet as one MCP server for an MCP
// host (Claude Desktop, an IDE, an agent).
//
// The server offers list_devices, call_device_tool (one device's own
// tool, under that device's policy and approval gate, its elicitations
// forwarded to the host), ask (an intent run by the engine of package
// controller, with progress notifications, its report saved in the
// reports directory) and pingmesh (the reachability and latency matrix
// between hosts and routers' loopbacks); the resources mcp://<device>/<module>:<path> (a
// device's YANG data, with a content id) and the saved reports; and
// submit_report with the D2D reports the device agents push, whose
// signatures are checked against a CA.
//
// Every request is attributed to the host's identity (stdio user, bearer
// token, client certificate, anonymous), decided by the controller's
// policy (package policy, with device scopes) and recorded in its audit
// log. The devices answer the controller with its own credentials: what
// they answer is masked for a host without the secrets scope on the
// device, as the device's own server masks for its callers, and a
// device's approval question goes to the host request that caused it,
// and only there. A host may subscribe to a device resource: a device
// with a gNMI URL in the inventory is followed by its ON_CHANGE stream
// (device.Watcher), any other polled through its server. The files:
// server.go (the tools), resources.go, watch.go (the subscriptions),
// access.go (identity, policy, audit), relay.go (approval questions),
// mask.go (secrets), pingmesh.go and d2d.go.
package serve
