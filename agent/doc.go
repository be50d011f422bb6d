// Package agent is netmcp's device-to-device collaboration agent (the
// troubleshooting draft's section 5): on each device, an MCP server to its
// neighbours and operators, listening on TLS 1.3 with mutual
// authentication (port 9514 by default), and an MCP client to its
// neighbours.
//
// A neighbour's session is authorised only for the intersection of the
// capabilities both sides state at initialize (capabilities.experimental
// ["ietf-mcp-d2d"]; the draft's "mcp/initialize" with an array is not
// valid MCP, see docs/agent.md), and only for read-only capabilities: the
// callee enforces its whitelist, and writes are never neighbour-callable.
// A peer whose certificate thumbprint differs from the one its LLDP TLV
// advertised is refused once the TLS handshake has completed (the peer
// proved it holds the certificate's key), never on a failed handshake.
//
// Every result a callee returns is signed (package d2d/sign); the
// initiator of an intent (Agent.Ask) runs its local calls and its calls to
// neighbours in parallel, verifies every signature, correlates the signed
// data with deterministic rules (correlate.go) and keeps a roll-up report
// (package d2d/report) signed by itself and countersigned by every
// participant (d2d.attest: a participant countersigns only a report of the
// caller's carrying results it issued to the caller for that report; one
// that does not is left out of the report), also served as an MCP
// resource. A proposal of a report is applied (Mitigate) only as the fix
// the device computes from its own diagnosis.
//
// Every D2D call lands in the device's audit log (Config.Audit); D2D is
// refused while the controller is reachable unless local collaboration is
// enabled (ControllerGate); a peer that times out, fails authentication or
// returns a result that does not verify is marked untrusted for a while
// (Config.UntrustedFor), and Revoke cancels a peer's calls in flight. See
// docs/agent.md.
package agent
