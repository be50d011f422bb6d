package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/transport"
)

// A request of protocol 2026-07-28 over HTTP belongs to no session, so
// what a change needs across requests (the candidate and its lock) is held
// under a handle: an opaque token the server mints at the first change of
// the candidate, returns in the tool's result, and the client passes back
// as the "handle" argument of the next calls. The handle's record is kept
// in the state directory (Options.StateDir), so that the server restarted,
// or another process serving the device from the same directory, continues
// it: the record lists the candidate's changes, which a server that did not
// make them replays on the device's candidate before it goes on. A handle
// is bound to the identity that minted it and expires after
// Options.HandleTTL without use; an expired handle's candidate is dropped
// and its lock released.

// DefaultHandleTTL is how long a handle lives without use
// (Options.HandleTTL).
const DefaultHandleTTL = 30 * time.Minute

// handlePrefix starts every handle.
const handlePrefix = "nh_"

// handleDir is the directory of handle records inside the state directory.
const handleDir = "handles"

// handleRecord is what the server keeps of a handle. The token itself is
// not stored: the record is named by its digest.
type handleRecord struct {
	// Identity is the caller the handle is bound to.
	Identity string `json:"identity"`
	// Owner is who the handle is on the device (its candidate lock holder).
	Owner device.Owner `json:"owner"`
	// Created and Expires bound the handle's life; each use moves Expires.
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
	// Ops are the changes made to the candidate under the handle since its
	// last commit, in order.
	Ops []candidateOp `json:"ops,omitempty"`
	// Server is the run of the server whose device candidate holds Ops;
	// another run rebuilds the candidate from Ops.
	Server string `json:"server,omitempty"`
	// Upload is a chunked network.file.push in progress (handles_upload.go).
	Upload *handleUpload `json:"upload,omitempty"`
}

// candidateOp is one change of a handle's candidate: YANG edits, CLI
// lines, or a configuration file written whole (File, its content in Data
// in memory or in the file Copy beside the record).
type candidateOp struct {
	Edit  []device.Edit `json:"edit,omitempty"`
	Lines []string      `json:"lines,omitempty"`
	File  string        `json:"file,omitempty"`
	Copy  string        `json:"copy,omitempty"`
	Data  []byte        `json:"-"`
}

// handleStore keeps handle records in dir/handles, or in memory when dir
// is "".
type handleStore struct {
	dir  string
	ttl  time.Duration
	recs *records[handleRecord]

	mu    sync.Mutex
	mus   map[string]*handleLock // key -> the lock ordering its candidate changes
	swept time.Time              // the last sweep of the directory (expired)
}

// handleLock orders the changes of one handle's candidate: a mutex in the
// process and, with a directory, an flock of handles/<key>.lock between
// the processes serving it. Whoever holds it re-reads the handle's record
// (refreshHandle) before it acts.
type handleLock struct {
	mu   sync.Mutex
	path string // "" in memory
	fl   *flock.File
}

// Lock takes the handle's lock. Should the lock file fail (the state
// directory is unusable), the record's own write fails next.
func (l *handleLock) Lock() {
	l.mu.Lock()
	if l.path != "" {
		l.fl, _ = flock.Lock(l.path)
	}
}

// Unlock releases it.
func (l *handleLock) Unlock() {
	_ = l.fl.Unlock()
	l.fl = nil
	l.mu.Unlock()
}

func newHandleStore(stateDir string, ttl time.Duration) *handleStore {
	if ttl <= 0 {
		ttl = DefaultHandleTTL
	}
	hs := &handleStore{ttl: ttl, mus: map[string]*handleLock{}}
	if stateDir != "" {
		hs.dir = filepath.Join(stateDir, handleDir)
	}
	hs.recs = newRecords(hs.dir, "handle record", cloneHandleRecord)
	return hs
}

// cloneHandleRecord copies r with its changes and upload.
func cloneHandleRecord(r *handleRecord) *handleRecord {
	c := *r
	c.Ops = slices.Clone(r.Ops)
	if r.Upload != nil {
		u := *r.Upload
		u.Data = slices.Clone(r.Upload.Data)
		c.Upload = &u
	}
	return &c
}

// handleKey is the name of a handle's record: the digest of its token, so
// that the directory does not hold usable handles.
func handleKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:16])
}

// validHandle reports whether token has the form of a handle.
func validHandle(token string) bool {
	if !strings.HasPrefix(token, handlePrefix) || len(token) != len(handlePrefix)+26 {
		return false
	}
	for _, r := range token[len(handlePrefix):] {
		if !(r >= 'A' && r <= 'Z' || r >= '2' && r <= '7') {
			return false
		}
	}
	return true
}

// load returns the record of key, or nil when there is none.
func (hs *handleStore) load(key string) (*handleRecord, error) { return hs.recs.load(key) }

// save writes the record of key.
func (hs *handleStore) save(key string, r *handleRecord) error { return hs.recs.save(key, r) }

// remove forgets the record of key, and the files kept beside it.
func (hs *handleStore) remove(key string) {
	hs.mu.Lock()
	delete(hs.mus, key)
	hs.mu.Unlock()
	hs.recs.remove(key)
	if hs.dir != "" {
		if extra, err := filepath.Glob(filepath.Join(hs.dir, key+".*")); err == nil {
			for _, f := range extra {
				_ = os.Remove(f)
			}
		}
	}
}

// replayFile writes a configuration file of a handle's candidate again.
func (s *Server) replayFile(ctx context.Context, owner device.Owner, op candidateOp) error {
	data := op.Data
	if s.handles.dir != "" {
		b, err := os.ReadFile(filepath.Join(s.handles.dir, op.Copy))
		if err != nil {
			return err
		}
		data = b
	}
	if s.files == nil {
		return fmt.Errorf("the device has no configuration files")
	}
	return s.files.WriteFile(ctx, owner, op.File, data)
}

// mutex returns the lock that orders the candidate changes of key.
func (hs *handleStore) mutex(key string) *handleLock {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	m := hs.mus[key]
	if m == nil {
		m = &handleLock{}
		if hs.dir != "" {
			if err := os.MkdirAll(hs.dir, 0o700); err == nil {
				m.path = filepath.Join(hs.dir, key+".lock")
			}
		}
		hs.mus[key] = m
	}
	return m
}

// expired removes the records expired at now and returns them. With a
// directory, a sweep reads every record: at most one per sweepEvery (a
// handle found expired when it is used is dropped then).
func (hs *handleStore) expired(now time.Time) []*handleRecord {
	if hs.dir != "" {
		hs.mu.Lock()
		due := now.Sub(hs.swept) >= sweepEvery
		if due {
			hs.swept = now
		}
		hs.mu.Unlock()
		if !due {
			return nil
		}
	}
	var out []*handleRecord
	for _, key := range hs.recs.keys() {
		r, err := hs.load(key)
		if err != nil || r == nil || now.Before(r.Expires) {
			continue
		}
		out = append(out, r)
		hs.remove(key)
	}
	return out
}

// callHandle is the handle a call acts under.
type callHandle struct {
	token string
	key   string
	rec   *handleRecord
	fresh bool // minted by this call, not saved yet
}

// handleArg is the argument of a write tool that names its handle.
type handleArg struct {
	Handle string `json:"handle,omitempty" jsonschema:"protocol 2026-07-28 over HTTP: the handle network.yang.edit or network.cli.configure returned, naming the candidate to act on (edits without it start a new candidate)"`
}

// handleLost answers a change whose handle record could not be written:
// the handle's candidate is dropped, so that no change is applied that the
// record does not hold.
func (s *Server) handleLost(ctx context.Context, h *callHandle, err error) error {
	owner := h.rec.Owner
	_ = s.cfg.Discard(ctx, owner)
	s.handles.remove(h.key)
	s.log.Error("handle record not written; candidate discarded", "owner", owner.Session, "error", err)
	return fmt.Errorf("the state directory could not record the change (%v); the handle's candidate was discarded, nothing will be committed", err)
}

// callIdentity names the caller of ctx for handle binding: the identity
// the access-control layer authenticated, or else Options.User.
func (s *Server) callIdentity(ctx context.Context) string {
	if id, ok := policy.IdentityFrom(ctx); ok {
		return id.String()
	}
	if s.opts.User != "" {
		return "user:" + s.opts.User
	}
	return "anonymous"
}

// stateless reports whether c runs on a session that ends with it
// (protocol 2026-07-28 over HTTP), where state lives under handles.
func stateless(c *call) bool {
	if c.detached {
		return c.wasStateless
	}
	return c.req != nil && c.req.Session != nil && transport.Stateless(c.req.Session)
}

// openHandle returns the handle of a stateless call: the one named by
// token, checked (it exists, has not expired, belongs to the caller) and
// with its candidate rebuilt on the device when another server run made
// it; or, with token "" and mint set, a new one, saved when the call
// changes the candidate (saveHandle).
func (s *Server) openHandle(ctx context.Context, tool, token string, mint bool) (*callHandle, error) {
	now := time.Now()
	s.expireHandles(now)
	who := s.callIdentity(ctx)
	if token == "" {
		if !mint {
			return nil, invalidParams("%s: on protocol 2026-07-28 over HTTP pass the \"handle\" that network.yang.edit or network.cli.configure returned: it names the candidate to act on", tool)
		}
		token = handlePrefix + rand.Text()
		key := handleKey(token)
		return &callHandle{token: token, key: key, fresh: true, rec: &handleRecord{Identity: who,
			Owner: device.Owner{Session: "h-" + key[:12], User: who}, Created: now.UTC(), Expires: now.Add(s.handles.ttl).UTC(), Server: s.handleTag}}, nil
	}
	if !validHandle(token) {
		return nil, invalidParams("%s: \"handle\" is not a handle this server issued", tool)
	}
	key := handleKey(token)
	rec, err := s.handles.load(key)
	if err != nil {
		return nil, err
	}
	if rec != nil && !now.Before(rec.Expires) {
		if s.cfg != nil {
			s.cfg.Release(rec.Owner)
		}
		s.handles.remove(key)
		rec = nil
	}
	if rec == nil {
		return nil, RPCError(netproto.Errorf(netproto.CodeConfigIncompatible,
			"%s: the handle is unknown or expired (handles expire after %s without use; an expired handle's candidate is dropped); start again without \"handle\"", tool, s.handles.ttl))
	}
	if rec.Identity != who {
		s.log.Warn("handle refused: another identity", "tool", tool, "identity", who)
		return nil, RPCError(netproto.Errorf(netproto.CodeAccessDenied,
			"%s: the handle belongs to another identity; a handle acts only for the caller it was issued to", tool))
	}
	h := &callHandle{token: token, key: key, rec: rec}
	if rec.Server != s.handleTag {
		mu := s.handles.mutex(key)
		mu.Lock()
		defer mu.Unlock()
		if err := s.refreshHandle(ctx, h); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// refreshHandle re-reads h's record, its lock held: another process
// serving the state directory may have changed the handle's candidate
// since the call opened it; then this process rebuilds it. Nothing for a
// call without a handle, or one whose handle it mints.
func (s *Server) refreshHandle(ctx context.Context, h *callHandle) error {
	if h == nil || h.fresh {
		return nil
	}
	rec, err := s.handles.load(h.key)
	if err != nil {
		return err
	}
	if rec == nil {
		return RPCError(netproto.Errorf(netproto.CodeConfigIncompatible,
			"the handle was dropped while this call waited (it expired, or its candidate could not be recorded); start again without \"handle\""))
	}
	h.rec = rec
	if rec.Server == s.handleTag {
		return nil
	}
	return s.rebuildCandidate(ctx, h)
}

// rebuildCandidate replays h's changes on the device's candidate, which
// another run of the server made, and records that this run holds them.
// The handle's lock is held.
func (s *Server) rebuildCandidate(ctx context.Context, h *callHandle) error {
	owner := h.rec.Owner
	if len(h.rec.Ops) > 0 {
		_ = s.cfg.Discard(ctx, owner)
		for _, op := range h.rec.Ops {
			var err error
			switch {
			case op.File != "":
				err = s.replayFile(ctx, owner, op)
			case len(op.Lines) > 0:
				err = s.cfg.Configure(ctx, owner, op.Lines)
			default:
				err = s.cfg.Edit(ctx, owner, op.Edit)
			}
			if err != nil {
				_ = s.cfg.Discard(ctx, owner)
				return RPCError(netproto.Errorf(netproto.CodeConfigIncompatible,
					"the candidate of this handle could not be rebuilt on this server (%v); nothing was changed; start again without \"handle\"", err))
			}
		}
	}
	h.rec.Server = s.handleTag
	return s.handles.save(h.key, h.rec)
}

// saveHandle records, after the call changed the candidate with op (or
// committed it, with clear), the handle's new state and moves its expiry.
func (s *Server) saveHandle(h *callHandle, op *candidateOp, clear bool) error {
	if op != nil {
		h.rec.Ops = append(h.rec.Ops, *op)
	}
	if clear {
		h.rec.Ops = nil
	}
	h.rec.Server = s.handleTag
	h.rec.Expires = time.Now().Add(s.handles.ttl).UTC()
	return s.handles.save(h.key, h.rec)
}

// expireHandles drops the handles expired at now: their candidate is
// discarded and its lock released.
func (s *Server) expireHandles(now time.Time) {
	for _, r := range s.handles.expired(now) {
		if s.cfg != nil {
			s.cfg.Release(r.Owner)
		}
		s.log.Info("handle expired, candidate released", "owner", r.Owner.Session)
	}
}

// handleResult is what a result says of the handle a call acted under.
type handleResult struct {
	Handle        string `json:"handle,omitempty" jsonschema:"protocol 2026-07-28 over HTTP: pass it back as \"handle\" to act on this candidate"`
	HandleExpires string `json:"handleExpires,omitempty" jsonschema:"when the handle expires without use (RFC 3339)"`
}

// result returns what a result says of h (nothing without a handle).
func (h *callHandle) result() handleResult {
	if h == nil {
		return handleResult{}
	}
	return handleResult{Handle: h.token, HandleExpires: h.rec.Expires.Format(time.RFC3339)}
}

// ownerKey carries the device owner and approval session of a call acting
// under a handle to the approval gate.
type ownerKey struct{}

// callOwner is who a call is on the device and to the approval gate.
type callOwner struct {
	owner device.Owner
	// approval is the session an approval is bound to: the handle's owner,
	// or, for a call that mints a handle, the caller's identity (each
	// attempt of such a call mints another handle).
	approval string
}

func withCallOwner(ctx context.Context, o callOwner) context.Context {
	return context.WithValue(ctx, ownerKey{}, o)
}

// writeTarget resolves who a state-changing call acts as: on a session,
// the session's owner (h nil); on a stateless call, the handle's.
func (s *Server) writeTarget(ctx context.Context, c *call, mint bool) (context.Context, device.Owner, *callHandle, sync.Locker, error) {
	ss := c.req.Session
	if !stateless(c) {
		return ctx, s.owner(ss), nil, s.candidateMu(ss), nil
	}
	var a handleArg
	if err := json.Unmarshal(c.args, &a); err != nil {
		return ctx, device.Owner{}, nil, nil, invalidParams("%s arguments: %v", c.tool, err)
	}
	h, err := s.openHandle(ctx, c.tool, a.Handle, mint)
	if err != nil {
		return ctx, device.Owner{}, nil, nil, err
	}
	appr := h.rec.Owner.Session
	if h.fresh {
		appr = "new-handle:" + h.rec.Identity
	}
	ctx = withCallOwner(ctx, callOwner{owner: h.rec.Owner, approval: appr})
	return ctx, h.rec.Owner, h, s.handles.mutex(h.key), nil
}

// statelessSession reports whether ss serves one call of protocol
// 2026-07-28 over HTTP.
func statelessSession(ss *mcp.ServerSession) bool { return ss != nil && transport.Stateless(ss) }
