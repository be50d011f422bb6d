package configstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/yang"
)

// Stopper stops a timer armed by Options.AfterFunc. *time.Timer implements it.
type Stopper interface {
	// Stop prevents the timer from firing; it reports whether it did.
	Stop() bool
}

// Options configure a Store.
type Options struct {
	// Dir is the state directory; "" keeps everything in memory only.
	Dir string
	// Schema validates edits and candidates; nil disables validation.
	Schema *yang.Schema
	// MaxBulkEdit is the most edits one Edit call may carry (default 1000).
	MaxBulkEdit int
	// DefaultConfirmTimeout is the rollbackTimeout in seconds (default 300):
	// a commit with CommitOptions.Confirmed < 0 uses it.
	DefaultConfirmTimeout int
	// Now returns the current time (default time.Now).
	Now func() time.Time
	// AfterFunc arms a timer that calls f after d (default time.AfterFunc).
	AfterFunc func(d time.Duration, f func()) Stopper
	// Apply is called with the new running configuration before a commit,
	// cancel, automatic rollback or rollback is made durable; an error
	// aborts the change (the device model may refuse it). It is called with
	// the store's lock held and must not call back into the Store. Open
	// never calls it: the driver configures the device from Running() once
	// Open returns.
	Apply func(running map[string]any) error
	// Reload is called, with the store's lock held, when the store finds
	// that another process sharing Dir changed the running configuration
	// (a commit, a cancel, a rollback): a device whose running state lives
	// in this process (a simulator) takes the new configuration; nil for a
	// device the processes share, which runs it already. An error is
	// logged. It must not call back into the Store.
	Reload func(running map[string]any) error
	// Log receives syslog events: commits, confirms, automatic rollbacks,
	// cancels and rollbacks. It is called with the store's lock held and
	// must not block or call back into the Store.
	Log func(device.LogEntry)
}

// Pending describes a confirmed commit waiting for Confirm.
type Pending struct {
	// ID is the commit id of the latest confirmed commit.
	ID string `json:"commit-id"`
	// Owner made the latest confirmed commit.
	Owner device.Owner `json:"owner"`
	// Confirmed is the rollback timeout in seconds of the latest confirmed commit.
	Confirmed int `json:"confirmed"`
	// Deadline is when the commits are rolled back without a Confirm.
	Deadline time.Time `json:"deadline"`
	// IDs lists the commits made while this confirmed commit was pending (a
	// follow-up confirmed commit extends it), oldest first.
	IDs []string `json:"commit-ids"`
	// Before is the commit whose configuration a rollback restores: the one
	// running before the first confirmed commit ("" = the initial one).
	Before string `json:"before"`
}

// clone returns a deep copy of p.
func (p *Pending) clone() *Pending {
	if p == nil {
		return nil
	}
	c := *p
	c.IDs = append([]string(nil), p.IDs...)
	return &c
}

// expiry records the last confirmed commit rolled back by its timer.
type expiry struct {
	ID       string    `json:"commit-id"`
	Deadline time.Time `json:"deadline"`
}

// commitRef is a commit's id and current status in state.json.
type commitRef struct {
	ID     string `json:"commit-id"`
	Status string `json:"status"`
}

// state is everything state.json holds; writing it is the commit point.
type state struct {
	Version int            `json:"version"`
	Seq     int            `json:"seq"`  // sequence number of the last commit
	Head    string         `json:"head"` // commit running now; "" = initial
	Running map[string]any `json:"running"`
	Commits []commitRef    `json:"commits"` // oldest first
	Pending *Pending       `json:"pending,omitempty"`
	Expired *expiry        `json:"expired,omitempty"`
}

// clone returns a copy of st sharing only the immutable running tree.
func (st *state) clone() *state {
	c := *st
	c.Commits = append([]commitRef(nil), st.Commits...)
	c.Pending = st.Pending.clone()
	if st.Expired != nil {
		e := *st.Expired
		c.Expired = &e
	}
	return &c
}

// setStatus sets the status of commit id.
func (st *state) setStatus(id, status string) {
	for i := range st.Commits {
		if st.Commits[i].ID == id {
			st.Commits[i].Status = status
			return
		}
	}
}

// record is one commit of the history: Dir/history/<id>.json.
type record struct {
	device.CommitInfo
	// Seq orders the commits.
	Seq int `json:"seq"`
	// Parent is the commit that was running before this one ("" = initial).
	Parent string `json:"parent"`
	// Config is the full running configuration this commit made.
	Config map[string]any `json:"config"`
}

// Store is a configuration engine: running, startup, one shared candidate
// with a lock, commits (confirmed or not), rollback and a commit history,
// persisted crash-safely in Options.Dir. It implements every
// device.Configurer method except Configure. Trees passed in are copied and
// trees returned are copies. All methods are safe for concurrent use, and
// several processes may open one Dir at once (shared.go).
type Store struct {
	mu   sync.Mutex
	opts Options
	sh   *shared // the state directory; nil in memory

	st      *state
	base    map[string]any
	startup map[string]any
	records map[string]*record

	cand      map[string]any
	holder    *device.Owner
	holderRun string // the run of the store that last wrote the candidate

	timer  Stopper
	gen    uint64 // incremented on every arm/stop; stale timer callbacks compare it
	closed bool
}

const stateVersion = 1

// Open opens a store. With Options.Dir it loads running, startup, history
// and a pending confirmed commit from the directory if it holds a state
// (initial is used only for a new directory). A pending confirmed commit
// whose deadline is in the future is re-armed; one whose deadline has
// passed is rolled back at once (and logged) before Open returns. Other
// processes may have the directory open too: each change is made under
// the directory's lock on what is on disk then.
func Open(initial map[string]any, opts Options) (*Store, error) {
	if opts.MaxBulkEdit <= 0 {
		opts.MaxBulkEdit = 1000
	}
	if opts.DefaultConfirmTimeout <= 0 {
		opts.DefaultConfirmTimeout = 300
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.AfterFunc == nil {
		opts.AfterFunc = func(d time.Duration, f func()) Stopper { return time.AfterFunc(d, f) }
	}
	init, err := normalizeTree(initial)
	if err != nil {
		return nil, fmt.Errorf("configstore: initial configuration: %w", err)
	}
	s := &Store{opts: opts, records: map[string]*record{}}
	if opts.Dir == "" {
		s.base, s.startup = init, init
		s.st = &state{Version: stateVersion, Running: init}
		return s, nil
	}
	if err := os.MkdirAll(filepath.Join(opts.Dir, historyDir), 0o700); err != nil {
		return nil, fmt.Errorf("configstore: %w", err)
	}
	if s.sh, err = openShared(opts.Dir); err != nil {
		return nil, err
	}
	if err := lockFile(s.sh.lockf); err != nil {
		s.sh.close()
		return nil, fmt.Errorf("configstore: lock %s: %w", s.sh.lockf.Name(), err)
	}
	s.sh.mapCounter()
	s.sh.seen = s.sh.gen()
	s.sh.writing = s.sh.seen&1 == 1
	// Make the history directory's entry durable before files go into it.
	err = syncDir(opts.Dir)
	if err == nil {
		err = s.loadLocked(init, true)
	}
	if err != nil {
		s.sh.writing = false
		unlockFile(s.sh.lockf)
		s.sh.close()
		return nil, err
	}
	s.leave()
	s.sh.removeDeadRuns()
	return s, nil
}

// loadLocked reads the state directory under its lock: at Open (init set)
// it initialises a new one with init, repairs what an interrupted write
// left and re-arms or expires a pending commit; later (another process
// changed the directory) it re-reads it, repairing too when repair is set
// (a process died in the middle of a change), gives a running
// configuration another process made to Options.Reload and arms or stops
// the confirmed-commit timer as the pending commit now says.
func (s *Store) loadLocked(init map[string]any, repair bool) error {
	dir, hdir := s.opts.Dir, filepath.Join(s.opts.Dir, historyDir)
	opening := init != nil
	if repair {
		if err := removeTemps(dir); err != nil {
			return err
		}
		if err := removeTemps(hdir); err != nil {
			return err
		}
	}
	var st state
	err := readJSON(dir, stateFile, &st)
	switch {
	case errors.Is(err, os.ErrNotExist) && opening:
		// A new directory (or one whose initialisation was interrupted:
		// state.json is written last).
		st = state{Version: stateVersion, Running: init}
		if err := s.dirty(); err != nil {
			return err
		}
		if err := writeJSONAtomic(dir, baseFile, init); err != nil {
			return err
		}
		if err := writeJSONAtomic(dir, startupFile, init); err != nil {
			return err
		}
		if err := removeOrphans(hdir, nil); err != nil {
			return err
		}
		if err := writeJSONAtomic(dir, stateFile, &st); err != nil {
			return err
		}
		s.st, s.base, s.startup = &st, init, init
		return s.loadCandidate()
	case err != nil:
		return fmt.Errorf("configstore: %w", err)
	}
	if st.Version != stateVersion {
		return fmt.Errorf("configstore: %s: unsupported version %d", filepath.Join(dir, stateFile), st.Version)
	}
	if st.Running == nil {
		st.Running = map[string]any{}
	}
	if s.base == nil {
		if err := readJSON(dir, baseFile, &s.base); err != nil {
			return fmt.Errorf("configstore: %w", err)
		}
		if s.base == nil {
			s.base = map[string]any{}
		}
	}
	var startup map[string]any
	if err := readJSON(dir, startupFile, &startup); err != nil {
		return fmt.Errorf("configstore: %w", err)
	}
	if startup == nil {
		startup = map[string]any{}
	}
	listed := map[string]bool{}
	records := make(map[string]*record, len(st.Commits))
	for _, c := range st.Commits {
		listed[c.ID] = true
		if r := s.records[c.ID]; r != nil {
			records[c.ID] = r
			continue
		}
		var r record
		if err := readJSON(hdir, c.ID+".json", &r); err != nil {
			return fmt.Errorf("configstore: history of commit %s: %w", c.ID, err)
		}
		if r.Config == nil {
			r.Config = map[string]any{}
		}
		if r.Status != c.Status && repair {
			// The process died between state.json and the status mirror.
			r.Status = c.Status
			if err := s.dirty(); err != nil {
				return err
			}
			if err := writeJSONAtomic(hdir, c.ID+".json", &r); err != nil {
				return err
			}
		}
		records[c.ID] = &r
	}
	if repair {
		if err := removeOrphans(hdir, listed); err != nil {
			return err
		}
	}
	if st.Head != "" && records[st.Head] == nil {
		return fmt.Errorf("configstore: %s: head commit %s is not in the history", filepath.Join(dir, stateFile), st.Head)
	}
	if p := st.Pending; p != nil {
		for _, id := range append([]string{p.Before}, p.IDs...) {
			if id != "" && records[id] == nil {
				return fmt.Errorf("configstore: pending commit refers to unknown commit %s", id)
			}
		}
	}
	old := s.st
	s.st, s.startup, s.records = &st, startup, records
	if err := s.loadCandidate(); err != nil {
		return err
	}
	if old != nil && (old.Seq != st.Seq || old.Head != st.Head) && s.opts.Reload != nil {
		if err := s.opts.Reload(cloneTree(st.Running)); err != nil {
			s.log(3, "APPLY_FAILED", fmt.Sprintf("taking the running configuration another server committed (%s): %v", nameOf(st.Head), err))
		}
	}
	p := st.Pending
	switch {
	case p == nil:
		if s.timer != nil {
			s.stopTimer()
		}
	case opening && !s.opts.Now().Before(p.Deadline):
		// The deadline passed while no process served the directory.
		if err := s.dirty(); err != nil {
			return err
		}
		if err := s.rollbackPending(device.StatusRolledBack, false); err != nil {
			return err
		}
		s.logExpired(p)
	case s.timer == nil || old == nil || old.Pending == nil || old.Pending.ID != p.ID || !old.Pending.Deadline.Equal(p.Deadline):
		// Every process serving the directory arms the timer; the first
		// to fire rolls back, under the lock, what is still pending.
		s.arm(p.Deadline.Sub(s.opts.Now()))
	}
	return nil
}

// removeOrphans deletes history files whose commit is not listed in
// state.json: the process died after writing them and before the commit
// point, so the commits never happened.
func removeOrphans(hdir string, listed map[string]bool) error {
	return removeFiles(hdir, func(name string) bool {
		id, ok := strings.CutSuffix(name, ".json")
		return ok && !listed[id]
	})
}

// save makes next (and the new commit rec, if any) durable, then installs
// them in memory. The history file is written before state.json, the commit
// point; statuses that changed are mirrored into the history files after.
func (s *Store) save(next *state, rec *record) error {
	if s.opts.Dir != "" {
		if err := s.dirty(); err != nil {
			return err
		}
		hdir := filepath.Join(s.opts.Dir, historyDir)
		if rec != nil {
			if err := writeJSONAtomic(hdir, rec.ID+".json", rec); err != nil {
				return err
			}
		}
		if err := writeJSONAtomic(s.opts.Dir, stateFile, next); err != nil {
			if rec != nil {
				os.Remove(filepath.Join(hdir, rec.ID+".json"))
			}
			return err
		}
	}
	if rec != nil {
		s.records[rec.ID] = rec
	}
	s.st = next
	for _, c := range next.Commits {
		r := s.records[c.ID]
		if r.Status == c.Status {
			continue
		}
		r.Status = c.Status
		if s.opts.Dir != "" {
			// A failure here is repaired by the next Open: state.json wins.
			_ = writeJSONAtomic(filepath.Join(s.opts.Dir, historyDir), c.ID+".json", r)
		}
	}
	return nil
}

// normalizeTree turns a Go value into a fresh generic JSON object tree
// (yang.Normalize copies every map and slice, so it shares nothing with t).
func normalizeTree(t map[string]any) (map[string]any, error) {
	if t == nil {
		return map[string]any{}, nil
	}
	v, err := yang.Normalize(t)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("configuration is a %T, not a JSON object", v)
	}
	return m, nil
}

// cloneTree returns a deep copy of a configuration tree.
func cloneTree(t map[string]any) map[string]any {
	return yang.Clone(t).(map[string]any)
}

// Running returns a copy of the running configuration.
func (s *Store) Running() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refresh() // on an error, what was read last
	return cloneTree(s.st.Running)
}

// RunningView returns the running configuration itself, not a copy, for
// reading: the store never modifies a tree it has installed (every edit,
// commit and rollback installs a new one, sharing what did not change), so
// the view stays valid and unchanging after the lock is released. Callers
// must not modify it. Reads served from it cost no copy of the whole
// configuration per call.
func (s *Store) RunningView() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refresh() // on an error, what was read last
	return s.st.Running
}

// CandidateView is Candidate without the copy, under RunningView's rules.
func (s *Store) CandidateView(owner device.Owner) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refresh() // on an error, what was read last
	return s.candidateLocked(owner)
}

// Startup returns a copy of the startup configuration.
func (s *Store) Startup() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refresh() // on an error, what was read last
	return cloneTree(s.startup)
}

// Candidate returns a copy of owner's candidate: the shared candidate if
// owner holds its lock, running otherwise.
func (s *Store) Candidate(owner device.Owner) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refresh() // on an error, what was read last
	return cloneTree(s.candidateLocked(owner))
}

// candidateLocked returns owner's view of the candidate (not a copy).
func (s *Store) candidateLocked(owner device.Owner) map[string]any {
	if s.holder != nil && *s.holder == owner {
		return s.cand
	}
	return s.st.Running
}

// Limits returns the effective maxBulkEdit and rollbackTimeout (seconds),
// for the device's Info and the MCP-NET capability object.
func (s *Store) Limits() (maxBulkEdit, rollbackTimeout int) {
	return s.opts.MaxBulkEdit, s.opts.DefaultConfirmTimeout
}

// LockHolder returns the owner of the candidate lock, if any.
func (s *Store) LockHolder() (device.Owner, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refresh()
	if s.holder != nil && s.sh != nil && !s.sh.alive(s.holderRun) {
		// Its process is gone; the next change drops it.
		return device.Owner{}, false
	}
	if s.holder == nil {
		return device.Owner{}, false
	}
	return *s.holder, true
}

// Pending returns the pending confirmed commit, if any.
func (s *Store) Pending() (Pending, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refresh() // on an error, what was read last
	if s.st.Pending == nil {
		return Pending{}, false
	}
	return *s.st.Pending.clone(), true
}

// SetStartup replaces the startup configuration after validating it.
func (s *Store) SetStartup(tree map[string]any) error {
	t, err := normalizeTree(tree)
	if err != nil {
		return annotate(err, yangSyntax, "startup configuration: ", "")
	}
	if err := s.validate(t); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(context.Background()); err != nil {
		return err
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	return s.setStartupLocked(t)
}

// CopyRunningToStartup saves the running configuration as startup.
func (s *Store) CopyRunningToStartup() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(context.Background()); err != nil {
		return err
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	return s.setStartupLocked(s.st.Running)
}

func (s *Store) setStartupLocked(t map[string]any) error {
	if s.closed {
		return ErrClosed
	}
	if s.opts.Dir != "" {
		if err := s.dirty(); err != nil {
			return err
		}
		if err := writeJSONAtomic(s.opts.Dir, startupFile, t); err != nil {
			return err
		}
	}
	s.startup = t
	return nil
}

// Close stops the confirmed-commit timer and leaves the state directory.
// It does not roll back a pending confirmed commit: another process serving
// the directory, or the next Open, re-arms it. A candidate this store made
// is dropped by the next process to change the directory.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.stopTimer()
	s.cand, s.holder = nil, nil
	if s.sh != nil {
		err := s.sh.close()
		s.sh = nil
		if err != nil {
			return fmt.Errorf("configstore: %w", err)
		}
	}
	return nil
}

// check returns ErrClosed after Close, or the context's error.
func (s *Store) check(ctx context.Context) error {
	if s.closed {
		return ErrClosed
	}
	if ctx != nil {
		return ctx.Err()
	}
	return nil
}
