// Package approval is netmcp's one gate for every state-changing call
// (network.cli.configure, network.yang.edit, network.commit, network.rollback,
// network.file.push, resources/write) and, when a policy says so, for
// diagnostics too.
//
// A call passes the gate in exactly one of three ways, never silently:
//
//   - a signed consent object from a trusted approver key (troubleshooting
//     draft section 7.1: tool and parameters, impact window, user identity
//     and role, signed timestamp), as an Ed25519-signed JSON object or a JWT;
//   - MCP elicitation, when the client supports it: the operator sees the
//     tool, its arguments, the diff and the rollback window, and accepts;
//   - otherwise a two-phase confirmation token: the first call is refused with
//     an *ApprovalRequired error carrying a single-use token bound to the
//     session, the tool, a hash of the arguments and an expiry; the second,
//     identical call carries the token.
//
// Declined, expired, replayed or mismatched approvals are errors and the call
// changes nothing.
package approval
