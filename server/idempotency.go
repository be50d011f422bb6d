package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/internal/flock"
	"github.com/netmcp/netmcp/netproto"
)

// A client that lost the answer to a write (a broken stream: protocol
// 2026-07-28 does not resume one) sends the request again with a new id.
// With an idempotency key in the request's _meta the server remembers, per
// caller identity and key, the arguments and the result of the first
// request: the same request again gets that result and applies nothing; the
// same key with other arguments is refused. Keys live in the state
// directory (StateDir/idempotency), so that a restarted server or another
// copy with the same directory knows them, for Options.IdempotencyTTL and
// at least the device's rollback window.

// MetaIdempotencyKey is the _meta member of a tools/call that names the
// request for safe retries.
const MetaIdempotencyKey = "netmcp/idempotencyKey"

// MetaIdempotentReplay is set (true) in the _meta of a result that repeats
// the result of an earlier request with the same idempotency key.
const MetaIdempotentReplay = "netmcp/idempotentReplay"

// DefaultIdempotencyTTL is how long an idempotency key is remembered
// (Options.IdempotencyTTL); never less than the rollback window.
const DefaultIdempotencyTTL = time.Hour

// maxIdempotencyKey is the longest key accepted, in bytes.
const maxIdempotencyKey = 255

// idemDir is the directory of idempotency records in the state directory.
const idemDir = "idempotency"

// idemRecord is what the server remembers of a keyed request.
type idemRecord struct {
	Tool    string          `json:"tool"`
	Digest  string          `json:"digest"` // SHA-256 of the tool and its arguments
	Running bool            `json:"running,omitempty"`
	Server  string          `json:"server"` // the server run that served it
	Result  json.RawMessage `json:"result,omitempty"`
	Expires time.Time       `json:"expires"`
	// Head is the commit running when a commit under a handle started
	// ("" = the initial configuration): a commit of the handle's owner
	// after it in the history is the one this request made.
	Head string `json:"head,omitempty"`
}

// idemStore keeps idempotency records in dir, or in memory when dir is "".
// Its mutex, and with a directory an flock of dir/lock, order the
// requests that look up or change a record, in this process and in the
// others serving the directory. While a request runs, its server holds an
// flock of dir/<id>.run, so that another process finding the record
// "running" knows whether its server is still serving it.
type idemStore struct {
	recs      *records[idemRecord]
	dir       string
	mu        sync.Mutex
	lastSweep time.Time
}

// lock takes the store's locks; the returned func releases them.
func (st *idemStore) lock() (func(), error) {
	st.mu.Lock()
	if st.dir == "" {
		return st.mu.Unlock, nil
	}
	fl, err := st.flock("lock", true)
	if err != nil {
		st.mu.Unlock()
		return nil, err
	}
	return func() { fl.Unlock(); st.mu.Unlock() }, nil
}

// flock locks dir/name (waiting, or not: then nil, flock.ErrHeld when held).
func (st *idemStore) flock(name string, wait bool) (*flock.File, error) {
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		return nil, err
	}
	if wait {
		return flock.Lock(filepath.Join(st.dir, name))
	}
	return flock.TryLock(filepath.Join(st.dir, name))
}

// running marks request id as being served by this process (nil in
// memory, where the record's Server tells); release ends it.
func (st *idemStore) running(id string) (*flock.File, error) {
	if st.dir == "" {
		return nil, nil
	}
	return st.flock(id+".run", false)
}

// release ends what running started.
func (st *idemStore) release(id string, fl *flock.File) {
	if fl == nil {
		return
	}
	os.Remove(filepath.Join(st.dir, id+".run"))
	fl.Unlock()
}

// sweepEvery spaces the sweeps of expired records: a sweep reads every
// record, and an expired one is refused when it is read anyway.
const sweepEvery = time.Minute

func newIdemStore(stateDir string) *idemStore {
	dir := ""
	if stateDir != "" {
		dir = filepath.Join(stateDir, idemDir)
	}
	clone := func(r *idemRecord) *idemRecord {
		c := *r
		c.Result = slices.Clone(r.Result)
		return &c
	}
	return &idemStore{recs: newRecords(dir, "idempotency record", clone), dir: dir}
}

// load returns the record id, or nil. Called with st.mu held.
func (st *idemStore) load(id string) (*idemRecord, error) { return st.recs.load(id) }

// save writes the record id. Called with st.mu held.
func (st *idemStore) save(id string, r *idemRecord) error { return st.recs.save(id, r) }

// remove forgets the record id. Called with st.mu held.
func (st *idemStore) remove(id string) {
	st.recs.remove(id)
	if st.dir != "" {
		os.Remove(filepath.Join(st.dir, id+".run"))
	}
}

// sweep forgets the records expired at now, at most once per sweepEvery.
// Called with st.mu held.
func (st *idemStore) sweep(now time.Time) {
	if now.Sub(st.lastSweep) < sweepEvery {
		return
	}
	st.lastSweep = now
	for _, id := range st.recs.keys() {
		if r, err := st.load(id); err == nil && r != nil && !now.Before(r.Expires) {
			st.remove(id)
		}
	}
}

// idempotencyKey returns the key of req's _meta, "" without one, or an
// error for a key that is not a non-empty string of printable ASCII of at
// most 255 bytes.
func idempotencyKey(req *mcp.CallToolRequest) (string, error) {
	v, ok := req.Params.GetMeta()[MetaIdempotencyKey]
	if !ok {
		return "", nil
	}
	k, ok := v.(string)
	if !ok || k == "" || len(k) > maxIdempotencyKey {
		return "", invalidParams("_meta[%q] must be a string of 1 to %d characters", MetaIdempotencyKey, maxIdempotencyKey)
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return "", invalidParams("_meta[%q] must be printable ASCII without spaces", MetaIdempotencyKey)
		}
	}
	return k, nil
}

// idempotencyTTL is how long keys are remembered: Options.IdempotencyTTL,
// and at least the rollback window of a confirmed commit.
func (s *Server) idempotencyTTL() time.Duration {
	ttl := s.opts.IdempotencyTTL
	if ttl <= 0 {
		ttl = DefaultIdempotencyTTL
	}
	return max(ttl, time.Duration(s.rollbackWindow())*time.Second)
}

// idempotent serves a write tool's call with key: the first request with
// key runs serve and its final result is remembered; the same request again
// gets that result, marked in _meta, without running serve; other
// arguments with key are refused (-32602). A request whose outcome is not
// final (a JSON-RPC error, an input-required or approval-required answer)
// leaves no record, so that its retry runs.
func (s *Server) idempotent(ctx context.Context, tool, key string, args json.RawMessage, serve func() (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s", s.callIdentity(ctx), key)
	id := hex.EncodeToString(h.Sum(nil)[:16])
	digest := argsDigest(tool, args)
	now := time.Now()
	owner := s.commitOwner(tool, args)

	st := s.idem
	unlock, err := st.lock()
	if err != nil {
		return nil, fmt.Errorf("idempotency key: %w", err)
	}
	st.sweep(now)
	rec, err := st.load(id)
	if rec != nil && !now.Before(rec.Expires) {
		st.remove(id)
		rec = nil
	}
	var run *flock.File
	if err == nil && rec != nil && rec.Running && rec.Tool == tool && rec.Digest == digest && owner != "" {
		// A commit under a handle whose server may have died serving it.
		if run, err = s.takeOver(ctx, id, rec, owner); err != nil || run == nil && rec.Running {
			unlock()
			if err != nil {
				return nil, fmt.Errorf("idempotency key: %w", err)
			}
			return s.replay(tool, rec, digest, true)
		}
		if !rec.Running { // it had applied: its result is now the record's
			unlock()
			return s.replay(tool, rec, digest, false)
		}
		rec = nil // not applied, its server gone: this request runs it
	} else if err == nil && rec == nil {
		if run, err = st.running(id); err == nil {
			next := &idemRecord{Tool: tool, Digest: digest, Running: true, Server: s.handleTag, Expires: now.Add(s.idempotencyTTL()).UTC()}
			if owner != "" {
				next.Head = s.headCommit(ctx)
			}
			if err = st.save(id, next); err != nil {
				st.release(id, run)
			}
		}
	}
	live := rec != nil && st.live(id, rec, s.handleTag)
	unlock()
	if err != nil {
		return nil, fmt.Errorf("idempotency key: %w", err)
	}
	if rec != nil {
		return s.replay(tool, rec, digest, live)
	}

	res, err := serve()
	unlock, lerr := st.lock()
	if lerr != nil {
		st.release(id, run)
		return res, err
	}
	defer unlock()
	defer st.release(id, run)
	if err != nil || res == nil || final(res) == nil {
		st.remove(id)
		return res, err
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		st.remove(id)
		return res, nil
	}
	if err := st.save(id, &idemRecord{Tool: tool, Digest: digest, Server: s.handleTag, Result: b, Expires: time.Now().Add(s.idempotencyTTL()).UTC()}); err != nil {
		s.log.Warn("idempotency record not written", "tool", tool, "error", err)
	}
	return res, nil
}

// commitOwner is, for a network.commit (not a dry run, confirm or cancel)
// under a handle, the handle's owner: the session its commits carry in
// the history. "" otherwise.
func (s *Server) commitOwner(tool string, args json.RawMessage) string {
	if tool != netproto.ToolCommit || s.cfg == nil {
		return ""
	}
	var a struct {
		Handle  string `json:"handle"`
		DryRun  bool   `json:"dryRun"`
		Confirm bool   `json:"confirm"`
		Cancel  bool   `json:"cancel"`
	}
	if json.Unmarshal(args, &a) != nil || !validHandle(a.Handle) || a.DryRun || a.Confirm || a.Cancel {
		return ""
	}
	return "h-" + handleKey(a.Handle)[:12]
}

// headCommit is the commit running now ("" = none, or unknown).
func (s *Server) headCommit(ctx context.Context) string {
	h, err := s.cfg.History(ctx)
	if err != nil || len(h) == 0 {
		return ""
	}
	return h[0].ID
}

// takeOver resolves a commit's record left "running": when its server
// still serves it (this process or another), it changes nothing (nil, the
// record still running). When that server is gone, the history tells
// whether the commit was made: then the record gets the commit's result
// (Running false); else the record is this process's now (the returned
// lock held) and the caller runs the commit. The store's locks are held.
func (s *Server) takeOver(ctx context.Context, id string, rec *idemRecord, owner string) (*flock.File, error) {
	st := s.idem
	run, err := st.running(id)
	if errors.Is(err, flock.ErrHeld) || err == nil && st.dir == "" && rec.Server == s.handleTag {
		return nil, nil // still being served
	}
	if err != nil {
		return nil, err
	}
	hist, err := s.cfg.History(ctx)
	if err != nil {
		st.release(id, run)
		return nil, err
	}
	for _, c := range hist {
		if c.ID == rec.Head {
			break
		}
		if c.Session != owner {
			continue
		}
		// The commit was made; its server died before it answered.
		res, err := toolResult(device.CommitResult{Status: device.StatusCommitted, CommitID: c.ID})
		if err != nil {
			st.release(id, run)
			return nil, err
		}
		b, _ := json.Marshal(res)
		rec.Running, rec.Result, rec.Server = false, b, s.handleTag
		if err := st.save(id, rec); err != nil {
			s.log.Warn("idempotency record not written", "tool", rec.Tool, "error", err)
		}
		st.release(id, run)
		s.log.Info("interrupted commit found in the history", "commit", c.ID)
		return nil, nil
	}
	rec.Server = s.handleTag
	if err := st.save(id, rec); err != nil {
		st.release(id, run)
		return nil, err
	}
	s.log.Info("interrupted commit not in the history: running it", "owner", owner)
	return run, nil
}

// live reports whether a running record's request is still being served,
// by this process or another. The store's locks are held.
func (st *idemStore) live(id string, rec *idemRecord, tag string) bool {
	if !rec.Running {
		return false
	}
	if st.dir == "" {
		return rec.Server == tag
	}
	fl, err := st.running(id)
	if err == nil {
		st.release(id, fl) // nobody holds it: its server is gone
		return false
	}
	return errors.Is(err, flock.ErrHeld) || rec.Server == tag
}

// replay answers a request whose key has a record; live tells whether a
// running one is still being served.
func (s *Server) replay(tool string, rec *idemRecord, digest string, live bool) (*mcp.CallToolResult, error) {
	switch {
	case rec.Tool != tool || rec.Digest != digest:
		return nil, invalidParams("%s: _meta[%q] was already used for another request (%s with other arguments); nothing was done; use a new key for a new request", tool, MetaIdempotencyKey, rec.Tool)
	case rec.Running && live:
		return nil, RPCError(netproto.Errorf(netproto.CodeAccessDenied,
			"%s: the first request with this idempotency key is still running; nothing was done; send it again when it has finished to get its result", tool).Retryable())
	case rec.Running:
		return nil, RPCError(netproto.Errorf(netproto.CodeConfigIncompatible,
			"%s: the first request with this idempotency key was interrupted (its server stopped while serving it), so whether it applied is unknown; nothing was done now; read the commit history (network:///config/history) before you retry with a new key", tool))
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(rec.Result, &res); err != nil {
		return nil, fmt.Errorf("idempotency record of %s: %w", tool, err)
	}
	if res.Meta == nil {
		res.Meta = mcp.Meta{}
	}
	res.Meta[MetaIdempotentReplay] = true
	s.log.Info("idempotent replay", "tool", tool)
	return &res, nil
}

// final returns res when it is the final outcome of a call: not an
// input-required nor an approval-required answer.
func final(res *mcp.CallToolResult) *mcp.CallToolResult {
	if res.InputRequests != nil || res.RequestState != "" {
		return nil
	}
	if m, ok := res.StructuredContent.(json.RawMessage); ok && res.IsError && strings.Contains(string(m), `"approval-required"`) {
		return nil
	}
	return res
}

// argsDigest is the SHA-256 of a tool and its arguments, members sorted.
func argsDigest(tool string, args json.RawMessage) string {
	var v any
	b := []byte(args)
	if json.Unmarshal(args, &v) == nil {
		if c, err := json.Marshal(v); err == nil {
			b = c
		}
	}
	sum := sha256.Sum256(append([]byte(tool+"\x00"), b...))
	return hex.EncodeToString(sum[:])
}
