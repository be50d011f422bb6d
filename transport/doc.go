// Package transport connects an *mcp.Server to its clients: over stdio
// (newline-delimited JSON-RPC on stdin/stdout, the default of `netmcp
// serve`), over stateful Streamable HTTP at the path /mcp (HTTPS with
// TLSListener), and over the MCP-NET TLS stream (ServeTLSStream, on
// package tlsstream).
//
// Both transports normalise the few request shapes in which the MCP-NET
// draft differs from MCP before the SDK sees them (see Normalize): a
// resources/read "cursor" parameter (draft section 5.2) and a
// resources/unsubscribe "subscriptionId" (section 8.6). Everything else is
// plain MCP.
//
// The Streamable HTTP server transport is netmcp's own (streamable.go), not
// the SDK's handler: it decodes each POST body once, in place, and writes
// a call's answer straight into its POST, as the stdio transport does;
// its statuses and header checks are the SDK's. Like the SDK's handler
// given an event store, it stores the events of SSE streams (a bounded
// memory store by default, HTTPOptions.EventStoreBytes) so that a client
// whose stream dropped resumes it with Last-Event-ID.
//
// The HTTP handler protects a loopback server against DNS rebinding: a
// request whose Host or Origin names neither a loopback address nor an
// explicitly allowed host is refused with 403.
package transport
