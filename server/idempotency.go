package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
}

// idemStore keeps idempotency records in dir, or in memory when dir is "".
// Its mutex orders the requests of the server that use a key.
type idemStore struct {
	recs      *records[idemRecord]
	mu        sync.Mutex
	lastSweep time.Time
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
	return &idemStore{recs: newRecords(dir, "idempotency record", clone)}
}

// load returns the record id, or nil. Called with st.mu held.
func (st *idemStore) load(id string) (*idemRecord, error) { return st.recs.load(id) }

// save writes the record id. Called with st.mu held.
func (st *idemStore) save(id string, r *idemRecord) error { return st.recs.save(id, r) }

// remove forgets the record id. Called with st.mu held.
func (st *idemStore) remove(id string) { st.recs.remove(id) }

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

	st := s.idem
	st.mu.Lock()
	st.sweep(now)
	rec, err := st.load(id)
	if rec != nil && !now.Before(rec.Expires) {
		st.remove(id)
		rec = nil
	}
	if err == nil && rec == nil {
		err = st.save(id, &idemRecord{Tool: tool, Digest: digest, Running: true, Server: s.handleTag, Expires: now.Add(s.idempotencyTTL()).UTC()})
	}
	st.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("idempotency key: %w", err)
	}
	if rec != nil {
		return s.replay(tool, rec, digest)
	}

	res, err := serve()
	st.mu.Lock()
	defer st.mu.Unlock()
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

// replay answers a request whose key has a record.
func (s *Server) replay(tool string, rec *idemRecord, digest string) (*mcp.CallToolResult, error) {
	switch {
	case rec.Tool != tool || rec.Digest != digest:
		return nil, invalidParams("%s: _meta[%q] was already used for another request (%s with other arguments); nothing was done; use a new key for a new request", tool, MetaIdempotencyKey, rec.Tool)
	case rec.Running && rec.Server == s.handleTag:
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
