package device

import (
	"context"
	"time"

	"github.com/netmcp/netmcp/diag"
)

// Driver is one network device.
type Driver interface {
	// Info describes the device: its name, dialect, models and limits.
	Info() Info
	// Get returns the RFC 7951 JSON subtree at path (a YANG instance path,
	// see package yang) from datastore ds. The result is a generic JSON
	// value: map[string]any, []any, string, float64, bool or nil. It may
	// share memory with the driver's own state: callers must not modify it
	// (copy it with yang.Clone to change it).
	// A path the device does not model gives a *netproto.Error with
	// CodeConfigIncompatible; a well-formed path with no data gives ErrNotFound.
	Get(ctx context.Context, ds Datastore, path string) (any, error)
	// Exec runs one operational (show/display) CLI command and returns its
	// output. An unknown or configuration command gives a *netproto.Error
	// with CodeConfigIncompatible and a detail.
	Exec(ctx context.Context, command string) (string, error)
	// Close releases the device's resources.
	Close() error
}

// Configurer is implemented by drivers whose configuration can change.
// Every change goes through the candidate: edit, diff, validate, commit.
// The owner identifies the MCP session holding the candidate lock.
type Configurer interface {
	// Edit applies edits to the candidate, all or nothing.
	Edit(ctx context.Context, owner Owner, edits []Edit) error
	// Configure parses CLI configuration lines in the device's dialect into
	// edits of the candidate, all or nothing.
	Configure(ctx context.Context, owner Owner, lines []string) error
	// Diff compares the candidate with running.
	Diff(ctx context.Context, owner Owner) (Diff, error)
	// Validate checks the candidate against the data model.
	Validate(ctx context.Context, owner Owner) error
	// Commit copies the candidate to running (see CommitOptions).
	Commit(ctx context.Context, owner Owner, opts CommitOptions) (CommitResult, error)
	// Confirm makes a pending confirmed commit permanent.
	Confirm(ctx context.Context, owner Owner) (CommitResult, error)
	// CancelCommit rolls a pending confirmed commit back at once.
	CancelCommit(ctx context.Context, owner Owner) (CommitResult, error)
	// Discard resets the candidate to running and releases the lock.
	Discard(ctx context.Context, owner Owner) error
	// Rollback makes running the configuration of commit id ("" = the one
	// before the last), as a new commit.
	Rollback(ctx context.Context, owner Owner, id string) (CommitResult, error)
	// History lists the commits, newest first.
	History(ctx context.Context) ([]CommitInfo, error)
	// Release drops every lock held by the owner (its session ended).
	Release(owner Owner)
}

// FileStore is implemented by drivers with configuration files:
// "running-config", "startup-config", "candidate-config".
type FileStore interface {
	// ReadFile returns a file's content.
	ReadFile(ctx context.Context, name string) ([]byte, error)
	// WriteFile replaces a file after validating its syntax. Writing
	// "candidate-config" replaces the candidate (locked to owner);
	// writing "startup-config" replaces the startup configuration.
	WriteFile(ctx context.Context, owner Owner, name string, data []byte) error
}

// Telemetry is implemented by drivers that report system state and events.
type Telemetry interface {
	// CPU returns the current CPU utilisation.
	CPU(ctx context.Context) (CPUStats, error)
	// Memory returns the current memory summary.
	Memory(ctx context.Context) (MemoryStats, error)
	// Syslog returns the last n log entries, oldest first.
	Syslog(ctx context.Context, n int) ([]LogEntry, error)
	// Crashinfo returns the crash records of a slot (e.g. "0/RP0").
	Crashinfo(ctx context.Context, slot string) ([]CrashRecord, error)
	// Subscribe calls fn for every event until the returned function is called.
	// fn must not block.
	Subscribe(fn func(Event)) (unsubscribe func())
}

// EventWaiter is implemented by Telemetry drivers whose events come from a
// stream that starts after Subscribe returns (gNMI ON_CHANGE): until it
// has the device's initial state, a change would be taken for that state
// and not reported.
type EventWaiter interface {
	// WaitEvents returns once every change from then on is an event, or
	// why the stream cannot say so (it ended, ctx is done).
	WaitEvents(ctx context.Context) error
}

// Diagnoser is implemented by drivers that run diagnostics (ping,
// traceroute, tracepath, dig). The driver returns the command's raw text
// output in the real tool's format; package diag parses it, so a simulated
// device and a real one go through the same parser.
type Diagnoser interface {
	// Diagnose runs req, calling onLine (if non-nil) with each output line
	// as it is produced, and returns the whole output and exit code. The
	// MCP layer validates req (diag.Request.Validate) before it gets here.
	Diagnose(ctx context.Context, req diag.Request, onLine func(string)) (DiagResult, error)
}

// Owner identifies who acts on the device: the MCP session and the user.
type Owner struct {
	Session string `json:"session"`
	User    string `json:"user,omitempty"`
}

// Info describes a device. It fills the MCP-NET capability object.
type Info struct {
	Name                string      `json:"name"`
	Vendor              string      `json:"vendor,omitempty"`
	Platform            string      `json:"platform,omitempty"`
	SoftwareVersion     string      `json:"softwareVersion,omitempty"`
	CLIDialect          string      `json:"cliDialect"`
	YangModules         []string    `json:"yangModules"`
	Datastores          []Datastore `json:"configDatastore"`
	NotificationStreams []string    `json:"notificationStream"`
	MaxBulkEdit         int         `json:"maxBulkEdit"`
	SupportsRollback    bool        `json:"supportsRollback"`
	RollbackTimeout     int         `json:"rollbackTimeout"`
}

// Datastore names a YANG datastore.
type Datastore string

// Datastores.
const (
	Running     Datastore = "running"
	Candidate   Datastore = "candidate"
	Operational Datastore = "operational"
	Startup     Datastore = "startup"
)

// EditOperation is the operation of one edit (NETCONF semantics).
type EditOperation string

// Edit operations.
const (
	OpMerge   EditOperation = "merge"   // default: merge value into the node
	OpReplace EditOperation = "replace" // replace the node with value
	OpCreate  EditOperation = "create"  // create; error if the node exists
	OpDelete  EditOperation = "delete"  // delete; error if the node is missing
	OpRemove  EditOperation = "remove"  // delete if present
)

// Edit is one change to the candidate.
type Edit struct {
	Operation EditOperation `json:"operation,omitempty"`
	Path      string        `json:"path"`
	Value     any           `json:"value,omitempty"`
}

// Diff is the difference between the candidate and running.
type Diff struct {
	// Unified is a unified diff of the two configurations as indented JSON.
	Unified string `json:"unified"`
	// Changes lists the changed nodes.
	Changes []Change `json:"changes"`
}

// Change is one changed node in a Diff.
type Change struct {
	Op   string `json:"op"` // "add", "delete" or "modify"
	Path string `json:"path"`
	Old  any    `json:"old,omitempty"`
	New  any    `json:"new,omitempty"`
}

// CommitOptions selects how a commit is made.
type CommitOptions struct {
	// Confirmed, when > 0, arms a timer of that many seconds: without a
	// Confirm before it fires, the commit is rolled back automatically.
	Confirmed int
	// Comment is kept in the history.
	Comment string
	// DryRun validates and diffs without changing anything.
	DryRun bool
}

// Commit statuses reported in CommitResult.Status.
const (
	StatusCommitted  = "committed"
	StatusConfirmed  = "confirmed"
	StatusCancelled  = "cancelled"
	StatusRolledBack = "rolled-back"
	StatusNoChanges  = "no-changes"
	StatusDryRun     = "dry-run"
)

// CommitResult is the outcome of a commit, confirm, cancel or rollback.
type CommitResult struct {
	Status          string    `json:"status"`
	CommitID        string    `json:"commit-id,omitempty"`
	RollbackTimeout int       `json:"rollbackTimeout,omitempty"`
	Deadline        time.Time `json:"deadline,omitzero"`
	Diff            *Diff     `json:"diff,omitempty"`
}

// CommitInfo is one entry of the commit history.
type CommitInfo struct {
	ID        string    `json:"commit-id"`
	Time      time.Time `json:"time"`
	User      string    `json:"user,omitempty"`
	Session   string    `json:"session,omitempty"`
	Comment   string    `json:"comment,omitempty"`
	Status    string    `json:"status"`
	Confirmed int       `json:"confirmed,omitempty"`
}

// CPUStats is the CPU utilisation of a device.
type CPUStats struct {
	// Percent is the utilisation averaged over the last interval, 0..100.
	Percent float64 `json:"utilization"`
	// OneMinute and FiveMinute are longer averages.
	OneMinute  float64   `json:"one-minute"`
	FiveMinute float64   `json:"five-minute"`
	Time       time.Time `json:"timestamp"`
	Slot       string    `json:"hardware-slot,omitempty"`
}

// MemoryStats is the memory summary of a device, in bytes.
type MemoryStats struct {
	Total uint64    `json:"total"`
	Used  uint64    `json:"used"`
	Free  uint64    `json:"free"`
	Time  time.Time `json:"timestamp"`
	Slot  string    `json:"hardware-slot,omitempty"`
}

// LogEntry is one syslog message.
type LogEntry struct {
	Time     time.Time `json:"time"`
	Severity int       `json:"severity"` // RFC 5424: 0 emergency .. 7 debug
	Facility string    `json:"facility,omitempty"`
	Mnemonic string    `json:"mnemonic,omitempty"` // e.g. LINEPROTO-5-UPDOWN
	Message  string    `json:"message"`
	// Text is the line as the device prints it.
	Text string `json:"text"`
}

// CrashRecord is one entry of a slot's crash information.
type CrashRecord struct {
	Time    time.Time `json:"time"`
	Slot    string    `json:"slot"`
	Process string    `json:"process"`
	Reason  string    `json:"reason"`
	Detail  string    `json:"detail,omitempty"`
}

// EventKind is the kind of a device event.
type EventKind string

// Event kinds.
const (
	EventSyslog    EventKind = "syslog"
	EventInterface EventKind = "interface" // Name is the interface
	EventCPU       EventKind = "cpu"
	EventMemory    EventKind = "memory"
	EventConfig    EventKind = "config" // running configuration changed
)

// Event is something that happened on a device.
type Event struct {
	Kind EventKind `json:"kind"`
	Name string    `json:"name,omitempty"`
	Time time.Time `json:"time"`
	Log  *LogEntry `json:"log,omitempty"`
}

// DiagResult is the raw outcome of a diagnostic run.
type DiagResult struct {
	Output   string `json:"output"`
	ExitCode int    `json:"exitCode"`
}
