// Package configstore is a driver-independent configuration engine for
// devices whose configuration is an RFC 7951 JSON tree. A driver embeds a
// *Store to implement every device.Configurer method except Configure (CLI
// parsing is the driver's) with the semantics operators rely on:
//
//   - One shared candidate with a lock, as in NETCONF: the first successful
//     Edit (or ReplaceCandidate) by an owner takes the lock; another owner's
//     Edit, ReplaceCandidate, Commit, Discard or Rollback gets a *LockedError
//     naming the holder. Release (session ended) and Discard drop the
//     holder's uncommitted candidate and free the lock; a commit frees it.
//   - Edits are all or nothing and validated against the yang.Schema.
//   - Commits are recorded in a history that keeps every commit's full
//     configuration, so nothing is ever lost. Commit ids have the MCP-NET
//     form "2025-10-19-03-27-00" (UTC), with "-2", "-3"... appended when a
//     second commit happens within the same second.
//   - Confirmed commits (RFC 6241 section 8.4) arm a timer; without a
//     Confirm (or a confirming plain commit) before it fires, running goes
//     back to the configuration from before the first confirmed commit,
//     the commits are marked "rolled-back" and a syslog event is logged.
//
// # Errors
//
// Errors of the MCP-NET draft are *netproto.Error values:
//
//	-32088 Network.YangSyntaxError     a path or value that does not parse, a
//	                                   create of an existing node, a delete
//	                                   of a missing one, an unknown operation
//	-32084 Network.ConfigIncompatible  a node the schema does not know, a
//	                                   value the schema refuses, more edits
//	                                   than MaxBulkEdit, a Confirm or
//	                                   CancelCommit with nothing pending, a
//	                                   configuration refused by Options.Apply
//	-32086 Network.ConfirmedCommitTimeout  Confirm after the timer fired
//	-32085 Network.RollbackFailed      Rollback to an unknown commit, with
//	                                   nothing to roll back to, while a
//	                                   confirmed commit is pending, or refused
//	                                   by Options.Apply
//
// The draft has no code for a locked candidate: that is a *LockedError.
// Writing the state directory can fail with an ordinary error.
//
// # Persistence
//
// With Options.Dir set, every state change is written atomically (temporary
// file in the same directory, write, fsync, rename, fsync of the directory),
// so a process killed at any point leaves a consistent state:
//
//	Dir/lock               flock(2) of each change; the generation counter
//	Dir/state.json         running, the commit list with statuses, the
//	                       pending confirmed commit, the last expiry
//	Dir/base.json          the initial configuration (before any commit)
//	Dir/startup.json       the startup configuration
//	Dir/history/<id>.json  one file per commit with its full configuration
//	Dir/candidate.json     the candidate and its lock holder (not fsync'ed)
//	Dir/runs/<run>         one per open Store, flock(2)ed while it is open
//
// A commit writes its history file first and state.json second; state.json
// is the commit point. On Open, a history file not listed in state.json (the
// process died between the two writes; the commit was never acknowledged)
// is removed, a history file whose status disagrees with state.json is
// rewritten, and leftover temporary files are deleted. The same repair runs
// when a process finds that another died in the middle of a change.
//
// # Several processes
//
// Several processes may open one Dir at once (copies of a server behind a
// load balancer, each serving the same device). Each change takes the
// flock of Dir/lock for its duration only and first re-reads what another
// process changed; a read costs one pread of the generation counter when
// nothing changed. The candidate and its lock are the device's, shared by
// the processes: a candidate held through a store that is open in no
// process any more (its process died or closed it) is dropped, as a
// session's candidate ends with its server. A running configuration
// another process committed is given to Options.Reload; every process
// arms the confirmed-commit timer, and the first to fire rolls back what
// is still pending then.
package configstore
