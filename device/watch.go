package device

import "context"

// Watcher is implemented by drivers whose device pushes the changes of its
// YANG data as they happen (gNMI's ON_CHANGE subscriptions), so that a
// reader learns of a change without polling.
type Watcher interface {
	// WatchChanges reports the changes of the data under paths (YANG
	// instance paths; a list without keys is every entry) to fn, in order,
	// from one goroutine, until ctx is done; it then returns ctx's error.
	// fn is first called with Synced set once the device has sent its
	// current data: every change from then on is reported. A stream the
	// device drops is opened again, and what changed meanwhile is reported
	// once it is back. A path the device does not support, or credentials
	// it refuses, end WatchChanges with the error.
	WatchChanges(ctx context.Context, paths []string, fn func(Changes)) error
}

// Changes is one report of a Watcher.
type Changes struct {
	// Paths are the instance paths of the leaves that changed or vanished.
	Paths []string
	// Synced marks the watch in step with the device: nothing in Paths.
	Synced bool
}
