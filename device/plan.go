package device

import "context"

// ConfigurePlanner is implemented by drivers that can tell which YANG edits
// configuration lines would make to an owner's candidate, without making
// them. The MCP layer authorizes CLI configuration by its effect: the
// paths of the planned edits are checked as a network.yang.edit of them
// would be, so that no tool reaches a leaf another tool may not write. For
// a driver without a planner, CLI configuration counts as a write of the
// whole tree.
type ConfigurePlanner interface {
	// PlanConfigure parses lines of the device's dialect against owner's
	// candidate and returns the edits they amount to. It changes nothing;
	// lines that do not parse are an error, as Configure's would be.
	PlanConfigure(ctx context.Context, owner Owner, lines []string) ([]Edit, error)
}

// RollbackPlanner is implemented by drivers that can tell what a rollback
// would change without making it, so that a rollback is authorized by the
// leaves it changes, as an edit of them would be. For a driver without a
// planner a rollback counts as a write of the whole tree.
type RollbackPlanner interface {
	// PlanRollback returns the difference between running and the
	// configuration of commit id ("" = the one before the last).
	PlanRollback(ctx context.Context, id string) (Diff, error)
}

// CommitDiffer is implemented by drivers that keep the configuration of
// every commit, so that the commit history can show what each commit
// changed.
type CommitDiffer interface {
	// CommitDiff returns what commit id changed: the difference between
	// the configuration running before it (its parent's, or the initial
	// one) and the one it made. It changes nothing.
	CommitDiff(ctx context.Context, id string) (Diff, error)
}

// Syncer is implemented by drivers whose state several processes may
// serve from one state directory (Options.StateDir) while each keeps part
// of it in memory (a simulator's running network model): Sync brings this
// process's copy up to date with what another process changed there (a
// commit), so that a request sees it. The server calls it before each
// tool call and resource read; it costs little when nothing changed.
type Syncer interface {
	Sync() error
}
