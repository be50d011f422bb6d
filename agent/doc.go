// Package agent is netmcp's device-to-device collaboration agent (the
// troubleshooting draft's section 5, issue 15): on each device, an MCP
// server to its neighbours and operators, listening on TLS 1.3 with mutual
// authentication (port 9514 by default), and an MCP client to its
// neighbours.
//
// A neighbour's session is authorised only for the intersection of the
// capabilities both sides state at initialize (capabilities.experimental
// ["ietf-mcp-d2d"]; the draft's "mcp/initialize" with an array is not
// valid MCP, see docs/agent.md), and only for read-only capabilities: the
// callee enforces its whitelist, and writes are never neighbour-callable.
// A peer whose certificate thumbprint differs from the one its LLDP TLV
// advertised is refused during the TLS handshake.
//
// Every result a callee returns is signed (package sign); the initiator of
// an intent (Agent.Ask) runs its local calls and its calls to neighbours in
// parallel, verifies every signature, correlates the signed data with
// deterministic rules (correlate.go) and keeps a signed roll-up report
// (package report), also served as an MCP resource.
package agent
