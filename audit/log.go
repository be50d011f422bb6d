package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/internal/atomicfile"
)

// FileName is the audit log's name inside a state directory.
const FileName = "audit.jsonl"

// HeadSuffix is appended to a log's path to name its head file.
const HeadSuffix = ".head"

// PathIn returns the audit log path inside stateDir.
func PathIn(stateDir string) string { return filepath.Join(stateDir, FileName) }

// SyncPolicy says when records are forced to stable storage.
type SyncPolicy int

// Sync policies.
const (
	// SyncEveryRecord fsyncs after each record (the default): nothing
	// acknowledged is lost on power failure.
	SyncEveryRecord SyncPolicy = iota
	// SyncInterval fsyncs at most every Options.SyncInterval (default 1 s).
	SyncInterval
	// SyncNever leaves flushing to the operating system.
	SyncNever
	// SyncWrites fsyncs each Durable record at once (and what came before
	// it), and the others as SyncInterval does: a change and its approval
	// are never lost, reads cost no fsync each.
	SyncWrites
)

// ParseSyncPolicy parses "always", "writes", "interval" or "never".
func ParseSyncPolicy(s string) (SyncPolicy, error) {
	switch s {
	case "writes":
		return SyncWrites, nil
	case "always", "":
		return SyncEveryRecord, nil
	case "interval":
		return SyncInterval, nil
	case "never":
		return SyncNever, nil
	}
	return 0, fmt.Errorf("audit: unknown fsync policy %q (want always, writes, interval or never)", s)
}

// Sink receives every record after it is written, e.g. a [*Syslog] exporter.
// Export must not block for long.
type Sink interface {
	Export(Record) error
}

// Options configure a Log.
type Options struct {
	// Sync is the fsync policy.
	Sync SyncPolicy
	// SyncInterval is the period of SyncInterval (default 1 s).
	SyncInterval time.Duration
	// Sinks receive each record after it is written.
	Sinks []Sink
	// OnSinkError, when set, is told of sink failures (the record stays in the log).
	OnSinkError func(error)
	// Now replaces time.Now (tests).
	Now func() time.Time
	// MaxSize rotates the log when appending a record would make it
	// larger than this many bytes (0: never). The full file is renamed to
	// a segment, path + "." + the seq of its last record (20 digits), and a
	// new file starts; its first record chains to the segment's last one,
	// so Verify checks the segments and the log as one chain.
	MaxSize int64
	// MaxSegments is how many rotated segments are kept (0: all); older
	// ones are deleted at rotation, and Verify starts the chain at the
	// oldest segment left.
	MaxSegments int
}

// segmentSuffixLen is the length of the seq suffix of a rotated segment.
const segmentSuffixLen = 20

// Segments returns the rotated segments of the log at path, oldest first.
func Segments(path string) ([]string, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	var out []string
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), base+".")
		if !ok || len(suffix) != segmentSuffixLen || strings.Trim(suffix, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	sort.Strings(out) // fixed-width seq suffixes: name order is chain order
	return out, nil
}

// Log is an append-only, hash-chained audit log; it is safe for
// concurrent use.
type Log struct {
	opts Options

	mu       sync.Mutex
	f        *os.File
	headF    *os.File
	path     string
	seq      uint64
	prev     string
	size     int64 // bytes in the current file
	lastSync time.Time
	dirty    bool
	// headStale: records were appended since the head file was written.
	headStale bool
	closed    bool
}

// Open opens (creating with mode 0600) the log at path and continues its
// chain after the last complete record. A trailing partial line (a write
// cut by a crash) is removed first.
func Open(path string, opts Options) (*Log, error) {
	if opts.SyncInterval <= 0 {
		opts.SyncInterval = time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	seq, prev, err := lastRecord(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit: %s: %w", path, err)
	}
	if seq == 0 {
		// A new file after a rotation continues the newest segment's chain.
		if seq, prev, err = lastSegmentRecord(path); err != nil {
			f.Close()
			return nil, err
		}
	}
	headF, err := os.OpenFile(path+HeadSuffix, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit: %w", err)
	}
	if err := checkOpenHead(headF, seq, prev); err != nil {
		f.Close()
		headF.Close()
		return nil, fmt.Errorf("audit: %s: %w; run `netmcp audit verify` and move the log aside to start a new one", path, err)
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		f.Close()
		headF.Close()
		return nil, fmt.Errorf("audit: %w", err)
	}
	l := &Log{opts: opts, f: f, headF: headF, path: path, seq: seq, prev: prev, size: size, lastSync: opts.Now()}
	if err := l.writeHead(); err != nil {
		l.f.Close()
		headF.Close()
		return nil, err
	}
	return l, nil
}

// lastRecord scans f for the last complete line, truncating a partial
// tail, and returns its seq and hash (0, Genesis for an empty log).
func lastRecord(f *os.File) (uint64, string, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, "", err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	var last []byte
	var good int64
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			if len(line) > 0 { // partial record from an interrupted write
				if terr := f.Truncate(good); terr != nil {
					return 0, "", terr
				}
			}
			break
		}
		if err != nil {
			return 0, "", err
		}
		good += int64(len(line))
		if len(bytes.TrimSpace(line)) > 0 {
			last = line
		}
	}
	if last == nil {
		return 0, Genesis, nil
	}
	var r0 struct {
		Seq  uint64 `json:"seq"`
		Hash string `json:"hash"`
	}
	if err := json.Unmarshal(last, &r0); err != nil || r0.Hash == "" {
		return 0, "", fmt.Errorf("last record is unreadable (%v); run `netmcp audit verify`", err)
	}
	return r0.Seq, r0.Hash, nil
}

// lastSegmentRecord returns the seq and hash of the last record of the
// newest rotated segment of path (0, Genesis without segments).
func lastSegmentRecord(path string) (uint64, string, error) {
	segs, err := Segments(path)
	if err != nil || len(segs) == 0 {
		return 0, Genesis, err
	}
	last := segs[len(segs)-1]
	f, err := os.OpenFile(last, os.O_RDWR, 0)
	if err != nil {
		return 0, "", fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	seq, prev, err := lastRecord(f)
	if err != nil {
		return 0, "", fmt.Errorf("audit: %s: %w", last, err)
	}
	return seq, prev, nil
}

// rotateLocked closes the current file as a segment named after its last
// record, starts an empty one and drops segments beyond MaxSegments. The
// chain (seq, prev) and the head file carry on unchanged.
func (l *Log) rotateLocked() error {
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("audit: fsync before rotation: %w", err)
	}
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("audit: rotation: %w", err)
	}
	seg := fmt.Sprintf("%s.%0*d", l.path, segmentSuffixLen, l.seq)
	if err := os.Rename(l.path, seg); err != nil {
		// Keep appending to the current file.
		if f, oerr := os.OpenFile(l.path, os.O_RDWR|os.O_APPEND, 0o600); oerr == nil {
			l.f = f
		}
		return fmt.Errorf("audit: rotation: %w", err)
	}
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("audit: rotation: %w", err)
	}
	l.f, l.size = f, 0
	if err := atomicfile.SyncDir(filepath.Dir(l.path)); err != nil {
		return fmt.Errorf("audit: rotation: %w", err)
	}
	if n := l.opts.MaxSegments; n > 0 {
		segs, err := Segments(l.path)
		if err != nil {
			return err
		}
		for len(segs) > n {
			if err := os.Remove(segs[0]); err != nil {
				return fmt.Errorf("audit: dropping an old segment: %w", err)
			}
			segs = segs[1:]
		}
	}
	return nil
}

// AddSink makes s receive the records appended from now on, after the
// sinks of Options.Sinks.
func (l *Log) AddSink(s Sink) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.opts.Sinks = append(l.opts.Sinks[:len(l.opts.Sinks):len(l.opts.Sinks)], s)
}

// Path returns the log's file path.
func (l *Log) Path() string { return l.path }

// Append seals r into the chain, writes it as one line, updates the head
// file, applies the sync policy and hands the record to the sinks. It
// returns the record as written.
func (l *Log) Append(r Record) (Record, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return r, errors.New("audit: log is closed")
	}
	if r.Time.IsZero() {
		r.Time = l.opts.Now()
	}
	r.Time = r.Time.UTC()
	r.Seq = l.seq + 1
	line, err := sealRecord(&r, l.prev)
	if err != nil {
		l.mu.Unlock()
		return r, err
	}
	if l.opts.MaxSize > 0 && l.size > 0 && l.size+int64(len(line)) > l.opts.MaxSize {
		if err := l.rotateLocked(); err != nil {
			l.mu.Unlock()
			return r, err
		}
	}
	if _, err := l.f.Write(line); err != nil {
		l.mu.Unlock()
		return r, fmt.Errorf("audit: writing record %d: %w", r.Seq, err)
	}
	l.size += int64(len(line))
	l.seq, l.prev = r.Seq, r.Hash
	l.headStale = true
	if l.opts.Sync == SyncEveryRecord || l.opts.Sync == SyncNever {
		err = l.writeHead()
	}
	if err == nil {
		err = l.maybeSync(r.Durable)
	}
	sinks := l.opts.Sinks
	l.mu.Unlock()
	if err != nil {
		return r, err
	}
	for _, s := range sinks {
		if serr := s.Export(r); serr != nil && l.opts.OnSinkError != nil {
			l.opts.OnSinkError(serr)
		}
	}
	return r, nil
}

// head is the content of the head file.
type head struct {
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"`
}

// checkOpenHead refuses to continue a log whose head file records more
// than the log holds (records cut from the end): rewriting the head would
// erase the evidence.
func checkOpenHead(headF *os.File, seq uint64, prev string) error {
	b, err := io.ReadAll(headF)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var h head
	if err := json.Unmarshal(b, &h); err != nil {
		return fmt.Errorf("head file unreadable: %v", err)
	}
	if h.Seq > seq || (h.Seq == seq && h.Hash != prev) {
		return fmt.Errorf("log ends at record %d but its head file records %d (%.12s…): records deleted or replaced", seq, h.Seq, h.Hash)
	}
	return nil
}

// headSize is the fixed length of the head file, so that it is rewritten
// in place (no truncation) on every append.
const headSize = 128

func (l *Log) writeHead() error {
	b, _ := json.Marshal(head{l.seq, l.prev})
	buf := make([]byte, headSize)
	for i := range buf {
		buf[i] = ' '
	}
	copy(buf, b)
	buf[headSize-1] = '\n'
	if _, err := l.headF.WriteAt(buf, 0); err != nil {
		return fmt.Errorf("audit: writing head: %w", err)
	}
	l.headStale = false
	return nil
}

func (l *Log) maybeSync(durable bool) error {
	l.dirty = true
	switch l.opts.Sync {
	case SyncNever:
		return nil
	case SyncWrites:
		if durable {
			break
		}
		fallthrough
	case SyncInterval:
		if now := l.opts.Now(); now.Sub(l.lastSync) < l.opts.SyncInterval {
			return nil
		}
	}
	return l.syncLocked()
}

func (l *Log) syncLocked() error {
	if !l.dirty {
		return nil
	}
	// Under the writes and interval policies the head follows the records
	// at each fsync, not at each record: it guards what was made durable
	// (a change is synced at once, with its head), and a head behind the
	// log is what a crash leaves anyway (Verify accepts it).
	if l.headStale {
		if err := l.writeHead(); err != nil {
			return err
		}
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("audit: fsync: %w", err)
	}
	if err := l.headF.Sync(); err != nil {
		return fmt.Errorf("audit: fsync head: %w", err)
	}
	l.dirty, l.lastSync = false, l.opts.Now()
	return nil
}

// Sync forces written records to stable storage.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	return l.syncLocked()
}

// Seq returns the sequence number of the last record written.
func (l *Log) Seq() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

// Close syncs and closes the log; later Appends fail.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	err := l.syncLocked()
	return errors.Join(err, l.f.Close(), l.headF.Close())
}
