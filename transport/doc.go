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
// The HTTP handler protects a loopback server against DNS rebinding: a
// request whose Host or Origin names neither a loopback address nor an
// explicitly allowed host is refused with 403.
package transport
