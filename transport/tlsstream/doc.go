// Package tlsstream is the MCP-NET TLS stream transport (MCP-NET section 8):
// JSON-RPC 2.0 messages carried over TLS 1.3 on TCP, the application
// protocol negotiated with ALPN "mcp", each message framed by a 4-byte
// big-endian length followed by that many bytes of JSON.
//
// Both ends are MCP SDK transports. A server accepts connections with
// [Listen] and [Listener.Accept] (or [Serve]) and hands each to
// mcp.Server.Connect; a client passes a [ClientTransport] to
// mcp.Client.Connect. TLS 1.3 is the minimum version and ALPN "mcp" is
// mandatory on both sides: a peer that negotiates anything else is refused.
//
// A frame larger than the configured maximum ([DefaultMaxFrameSize] unless
// set) is never buffered: the reader fails with a [*FrameTooLargeError],
// a JSON-RPC error naming the limit is sent to the peer when possible, and
// the connection is closed. A frame that is not one JSON-RPC message (not
// JSON, two messages, a batch, an id the SDK would not echo exactly) is
// answered with a JSON-RPC error (-32700 or -32600, id null) and the
// session goes on. The server bounds the handshake and the time to the
// client's first frame; a failed Accept is retried, never fatal.
package tlsstream
