package configstore

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/netmcp/netmcp/device"
)

// Several processes may serve one state directory at once (copies of a
// server behind a load balancer). Every change is a read-modify-write
// under an exclusive flock(2) of Dir/lock, held for that change only: the
// store first re-reads what another process changed, then changes it and
// writes it back. The lock file also holds a generation counter, bumped to
// an odd value before the first write of a change and to the next even
// value after its last, so that a read costs one pread when nothing
// changed, and a change a process died in the middle of (an odd value
// found under the lock) is repaired as Open repairs it. The candidate and
// its lock holder live in Dir/candidate.json (not fsync'ed: an
// uncommitted candidate need not survive a power loss). Each open store
// holds an flock on Dir/runs/<run> for its life, so that a candidate held
// by a process that died is known to be free.

const (
	candidateFile = "candidate.json"
	runsDir       = "runs"
)

// shared is a store's handle on a state directory other processes may
// share.
type shared struct {
	dir     string
	lockf   *os.File // Dir/lock: the flock of each change, and the generation
	runf    *os.File // Dir/runs/<run>: locked while this store is open
	run     string   // this store's run id
	seen    uint64   // the generation the memory state was read at
	writing bool     // the current change has made the generation odd
	genMap  []byte   // the counter mapped into memory (nil: read with pread)
}

// candFile is what candidate.json holds.
type candFile struct {
	Holder device.Owner   `json:"holder"`
	Run    string         `json:"run"` // the run of the store that last wrote it
	Tree   map[string]any `json:"tree"`
}

// openShared opens dir's lock file and registers a new run in it.
func openShared(dir string) (*shared, error) {
	if err := os.MkdirAll(filepath.Join(dir, runsDir), 0o700); err != nil {
		return nil, fmt.Errorf("configstore: %w", err)
	}
	lockf, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("configstore: %w", err)
	}
	run := rand.Text()[:16]
	runf, err := os.OpenFile(filepath.Join(dir, runsDir, run), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		if err = tryLockFile(runf); err != nil {
			runf.Close()
		}
	}
	if err != nil {
		lockf.Close()
		return nil, fmt.Errorf("configstore: register in %s: %w", dir, err)
	}
	return &shared{dir: dir, lockf: lockf, runf: runf, run: run}, nil
}

// mapCounter maps the generation counter into memory; the directory's
// lock is held. A lock file shorter than the counter (new, or written by
// an older version) is first extended, its bytes kept.
func (sh *shared) mapCounter() {
	var b [8]byte
	n, err := sh.lockf.ReadAt(b[:], 0)
	if n < len(b) && (err == nil || errors.Is(err, io.EOF)) {
		if _, err := sh.lockf.WriteAt(b[:], 0); err != nil {
			return
		}
	}
	if m, err := mapGen(sh.lockf); err == nil {
		sh.genMap = m
	}
}

// close ends the run and closes the lock file.
func (sh *shared) close() error {
	path := sh.runf.Name()
	if sh.genMap != nil {
		unmapGen(sh.genMap)
		sh.genMap = nil
	}
	err := errors.Join(unlockFile(sh.runf), sh.runf.Close(), sh.lockf.Close())
	os.Remove(path)
	return err
}

// gen reads the generation counter (0 for a new or foreign file).
func (sh *shared) gen() uint64 {
	if sh.genMap != nil {
		if g, ok := loadGen(sh.genMap); ok {
			return g
		}
	}
	var b [8]byte
	if _, err := sh.lockf.ReadAt(b[:], 0); err != nil && !errors.Is(err, io.EOF) {
		return ^uint64(0) // unreadable: never equal to what was seen
	}
	return binary.LittleEndian.Uint64(b[:])
}

// setGen writes the generation counter.
func (sh *shared) setGen(g uint64) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], g)
	if _, err := sh.lockf.WriteAt(b[:], 0); err != nil {
		return fmt.Errorf("configstore: %w", err)
	}
	return nil
}

// alive reports whether the store of run is open in some process. A run
// found dead has its file removed.
func (sh *shared) alive(run string) bool {
	if run == "" {
		return false
	}
	if run == sh.run {
		return true
	}
	path := filepath.Join(sh.dir, runsDir, filepath.Base(run))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		return true // cannot tell: keep the lock
	}
	defer f.Close()
	switch err := tryLockFile(f); {
	case errors.Is(err, errLocked):
		return true
	case err != nil:
		return true
	}
	os.Remove(path)
	unlockFile(f)
	return false
}

// removeDeadRuns removes the files of runs no process has open.
func (sh *shared) removeDeadRuns() {
	ents, err := os.ReadDir(filepath.Join(sh.dir, runsDir))
	if err != nil {
		return
	}
	for _, e := range ents {
		sh.alive(e.Name())
	}
}

// enter starts a change (or a read that found the generation moved): it
// takes the directory's lock and re-reads what another process changed
// since this store last read it. s.mu is held; leave ends it.
func (s *Store) enter() error {
	sh := s.sh
	if sh == nil {
		return nil
	}
	if err := lockFile(sh.lockf); err != nil {
		return fmt.Errorf("configstore: lock %s: %w", sh.lockf.Name(), err)
	}
	g := sh.gen()
	if g == sh.seen && g&1 == 0 {
		return nil
	}
	// Another process changed the directory, or died changing it (odd):
	// then this change finishes its generation.
	sh.seen, sh.writing = g, g&1 == 1
	if err := s.loadLocked(nil, g&1 == 1); err != nil {
		sh.writing = false
		unlockFile(sh.lockf)
		return err
	}
	return nil
}

// leave ends what enter started: the generation moves on if the change
// wrote anything, and the lock is released.
func (s *Store) leave() {
	sh := s.sh
	if sh == nil {
		return
	}
	if sh.writing {
		sh.seen++
		if sh.seen&1 == 1 {
			sh.seen++
		}
		_ = sh.setGen(sh.seen) // failing, the generation stays odd: the next change repairs
		sh.writing = false
	}
	unlockFile(sh.lockf)
}

// dirty marks the current change as writing, before its first write.
func (s *Store) dirty() error {
	sh := s.sh
	if sh == nil || sh.writing {
		return nil
	}
	if err := sh.setGen(sh.seen + 1); err != nil {
		return err
	}
	sh.seen++
	sh.writing = true
	return nil
}

// refresh brings the memory state up to date when another process changed
// the directory (one pread when nothing changed). s.mu is held.
func (s *Store) refresh() error {
	if s.sh == nil || s.closed || s.sh.gen() == s.sh.seen {
		return nil
	}
	if err := s.enter(); err != nil {
		return err
	}
	s.leave()
	return nil
}

// Sync brings the store up to date with what other processes sharing its
// directory changed (a commit, a rollback, the candidate): a commit made
// through another process is seen, and given to Options.Reload, at the
// next call of any method; a driver whose own state follows running calls
// Sync before it serves a request that reads that state.
func (s *Store) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refresh()
}

// setCandidate makes tree, held by holder (nil: none), the candidate, in
// the directory first.
func (s *Store) setCandidate(tree map[string]any, holder *device.Owner) error {
	run := ""
	if s.sh != nil {
		if err := s.dirty(); err != nil {
			return err
		}
		path := filepath.Join(s.opts.Dir, candidateFile)
		if holder == nil {
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("configstore: %w", err)
			}
		} else {
			run = s.sh.run
			data, err := json.Marshal(candFile{Holder: *holder, Run: run, Tree: tree})
			if err != nil {
				return fmt.Errorf("configstore: encode %s: %w", candidateFile, err)
			}
			if err := writeFileUnsynced(s.opts.Dir, candidateFile, data); err != nil {
				return err
			}
		}
	}
	s.cand, s.holder, s.holderRun = tree, holder, run
	return nil
}

// loadCandidate reads candidate.json; a candidate whose store is open in
// no process any more is dropped.
func (s *Store) loadCandidate() error {
	var cf candFile
	switch err := readJSON(s.opts.Dir, candidateFile, &cf); {
	case errors.Is(err, os.ErrNotExist):
		s.cand, s.holder, s.holderRun = nil, nil, ""
		return nil
	case err != nil:
		return fmt.Errorf("configstore: %w", err)
	}
	if cf.Tree == nil {
		cf.Tree = map[string]any{}
	}
	s.cand, s.holder, s.holderRun = cf.Tree, &cf.Holder, cf.Run
	s.dropDead()
	return nil
}

// dropDead drops the candidate when the store that holds it is open in no
// process (its process died or closed it): the candidate of a session
// ends with its server, as in a single process. s.mu and the lock are
// held.
func (s *Store) dropDead() {
	if s.sh == nil || s.holder == nil || s.sh.alive(s.holderRun) {
		return
	}
	if err := s.setCandidate(nil, nil); err != nil {
		s.log(3, "CANDIDATE", fmt.Sprintf("dropping the candidate of a server that stopped: %v", err))
	}
}

// writeFileUnsynced replaces dir/name with data by a rename, without
// fsync: other processes never see a partial file, but a power loss may
// lose it.
func writeFileUnsynced(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, tmpPrefix+name+"-*")
	if err != nil {
		return fmt.Errorf("configstore: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("configstore: write %s: %w", name, err)
	}
	return nil
}
