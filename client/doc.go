// Package client is netmcp's MCP client to a fleet of devices: one
// supervised MCP session per device of an inventory, reached over
// Streamable HTTP (TLS, mutual TLS, a bearer token), the MCP-NET TLS stream
// (mcps://, ALPN "mcp") or a stdio command. The controller (netmcp ask,
// netmcp controller serve) builds on it. The device-to-device agent does
// not: its sessions to neighbours are pinned to the certificate each one
// advertised and negotiated again on every connection, and a neighbour
// that fails is distrusted rather than reconnected.
//
// A Fleet connects to every device in parallel and keeps each session
// alive: a supervisor per device pings it periodically, notices a lost
// session (a failed ping, a closed connection, a server that no longer
// knows the session after a restart), opens a new one with exponential
// backoff and replays the device's resource subscriptions on it. The go-sdk
// never re-initializes a lost session by itself; this package does.
//
// Each Device exposes what its server advertised at initialize: the
// MCP-NET capabilities.network object (read from the wire, where the SDK's
// typed result drops it, or from capabilities.extensions["ietf.org/mcp-net"])
// and its tool list.
//
// Fan-out is bounded and never hangs: Fleet.Each and Fleet.CallAll run a
// function (or a tool call) on many devices with at most
// Options.Concurrency at once and a timeout per device; every device gets
// a Result, with the error of a device that failed, timed out or is down.
//
// Requests from devices are passed to handlers the caller provides:
// elicitations (Options.Elicit, e.g. relayed to an operator), sampling
// (Options.Sample), resource updates, progress and log notifications.
//
// # Correlation
//
// Every request sent through this package carries the correlation id
// found in its context (WithCorrelationID) in its params' _meta, under the
// key MetaCorrelationID ("netmcp/correlationId"):
//
//	{"method":"tools/call","params":{"name":"network.yang.get",
//	  "arguments":{...},"_meta":{"netmcp/correlationId":"intent-7f3a..."}}}
//
// The controller uses one id per intent, so the audit logs of every device
// an intent touched can be joined on it (the troubleshooting draft's 7.4).
package client
