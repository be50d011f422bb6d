// Package netconf is the driver of a device reached over NETCONF
// (RFC 6241) on SSH (RFC 6242): netconf://USER@HOST[:PORT]?key-file=PATH&known-hosts=PATH.
//
// # Session
//
// The NETCONF session is github.com/nemith/netconf v0.0.2 (the last release
// under that module path; its successor nemith.io/netconf is not served by
// the module proxy here) on golang.org/x/crypto/ssh: it does the <hello>
// exchange, the base:1.0 end-of-message framing and, when both sides say
// base:1.1, the chunked framing, and matches replies to message-ids. It is
// used as a framing and RPC layer only: its typed operations stop short
// (no <get>, no filters, no <get-schema>), so the driver writes every
// operation's XML itself and sends it with Session.Do. Its handshake has no
// deadline of its own; the driver closes the transport when the device
// says no <hello> within ?timeout= (default 30s). The library logs "connection
// closed unexpectedly" through the standard logger when a device drops the
// session; it never logs message contents.
//
// The driver keeps one session per device. Every RPC takes the session in
// turn (a context-aware semaphore), so callers never interleave; a session
// whose transport fails is dropped and the next call opens a new one
// (reads are retried once on the new session, writes never are). The
// <hello> fills device.Info: candidate, confirmed-commit (1.0 and 1.1),
// rollback-on-error and validate, and the YANG modules from the
// capabilities' module= parameters.
//
// Credentials are only given by reference: ?key-file=PATH (an unencrypted
// OpenSSH or PEM private key), ?password-file=PATH or ?password-env=NAME
// (password and keyboard-interactive). A password in the URL is refused.
// The host key is checked against ?known-hosts=PATH (OpenSSH format);
// ?insecure-host-key=1 skips the check and is logged as a warning. Errors
// and logs name files and variables, never their contents.
//
// # Reads
//
// Get maps the datastores to <get-config> (running, candidate, startup
// where advertised) and <get> (operational), with a subtree filter built
// from the YANG path (containers, list keys as content-match nodes, a
// selection node at the end). The reply is converted to RFC 7951 JSON
// through the device's own YANG: every advertised module (and what it
// imports or includes) is fetched once with <get-schema> (RFC 6022) and
// compiled with github.com/openconfig/goyang, so members are qualified by
// module where the module changes, lists (arrays) and containers come from
// the schema not the XML's shape, and leaves are typed: int8..int32 and
// uint8..uint32 as JSON numbers, int64, uint64 and decimal64 as strings,
// boolean, empty as [null], identityref as "module:identity" (the XML
// prefix resolved through its namespace), unions by their first matching
// member, leafrefs through their target. Elements the schema does not
// know (a module that failed to fetch or compile, anydata) are converted
// by their shape: repeated siblings become arrays and text stays a string.
// instance-identifier values keep the device's XML prefixes.
//
// A device that has ietf-interfaces but not openconfig-interfaces (such as
// netconfd) also serves /openconfig-interfaces:interfaces as a read-only
// view derived from ietf-interfaces and interfaces-state (names, type,
// description, enabled, MTU, addresses of subinterface 0, status and
// counters), so the tools and intents that read OpenConfig work; edits
// must use the device's own ietf-interfaces.
//
// # Writes
//
// Edits go to the candidate only, in one <edit-config> per call (with
// rollback-on-error where advertised, so a call is all or nothing): the
// RFC 7951 value becomes XML with nc:operation on the edited node (merge,
// replace, create, delete, remove), list keys first in their YANG order,
// identityref values with their namespace declared. The first edit takes
// the device's <lock> on the candidate for the netmcp session that made
// it; another netmcp session gets *configstore.LockedError, another NETCONF
// client's lock gives -32083 with the device's lock-denied detail. Diff
// compares <get-config> of candidate and running; Discard is
// <discard-changes> and <unlock>. Commit is <commit>; a confirmed commit
// adds <confirmed/>, <confirm-timeout> and (with :confirmed-commit:1.1) a
// random <persist> id, so the rollback is the device's own: it happens at
// the timeout even if netmcp dies, and Confirm (<commit><persist-id>) or
// CancelCommit (<cancel-commit><persist-id>) work from a new session.
// Rollback re-applies the running configuration saved before a commit
// made through this driver (edit-config replace, commit): the history is
// in memory, kept by this driver only. After a commit the driver checks
// that running now equals the candidate.
//
// netconfd (yuma123 2.13, recognised by its yuma123-system module) has
// three quirks handled here: it never answers an RPC it reads together
// with the client's <hello> (on a loaded host the first RPC arrives in the
// same read), so a session's first read is sent again while unanswered
// and a first write waits for one answered read; its <validate> of the candidate makes the next
// <commit> a silent no-op, so Validate sends an inline copy of the
// candidate instead (:validate:1.1); and it aborts when a persistent
// confirmed commit times out after its session ended, so confirmed commits
// on netconfd go without <persist> unless ?persist=1 (netconfd then rolls
// back when the session ends, and only that session can confirm). ?persist=0
// turns persist off for any device.
//
// # Errors
//
// An <rpc-error> becomes a *netproto.Error: lock-denied and in-use -32083
// (retryable), access-denied -32083, invalid-value, bad-/missing-element
// and attribute errors, malformed-message and too-big -32088,
// unknown-element/-namespace, operation-not-supported, data-exists,
// data-missing and operation-failed -32084, rollback-failed and
// partial-operation -32085. The detail carries every error's type, tag,
// error-message and error-info; the path is the error-path with the
// device's XML prefixes turned into module names.
//
// NETCONF has no CLI: Exec and Configure refuse with -32084.
package netconf
