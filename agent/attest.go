package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/sign"
)

// ToolAttest is the neighbour tool by which a participant countersigns a
// report: it checks that the results the report carries under its name
// are the ones it issued to the caller, then signs the report's digest.
const ToolAttest = "d2d.attest"

// CapAttest makes ToolAttest callable.
const CapAttest = "ietf-d2d-attest"

// maxIssued bounds the results an agent remembers per caller for attestation.
const maxIssued = 4096

// issuedLog remembers, per caller, the hash of every result issued to it.
type issuedLog struct {
	mu sync.Mutex
	m  map[string]map[uint64][32]byte
}

func (l *issuedLog) add(r sign.Result) {
	h, err := resultHash(r)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]map[uint64][32]byte{}
	}
	m := l.m[r.Caller]
	if m == nil {
		m = map[uint64][32]byte{}
		l.m[r.Caller] = m
	}
	m[r.Nonce] = h
	if len(m) > maxIssued {
		keys := make([]uint64, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		for _, k := range keys[:len(m)-maxIssued] {
			delete(m, k)
		}
	}
}

func (l *issuedLog) check(caller string, nonce uint64, h [32]byte) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	got, ok := l.m[caller][nonce]
	return ok && got == h
}

// resultHash is the SHA-256 of a result's signed bytes and signature.
func resultHash(r sign.Result) ([32]byte, error) {
	b, err := r.SignedBytes()
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(append(b, r.Sig...)), nil
}

// attestIn is ToolAttest's input.
type attestIn struct {
	// Digest is report.Digest of the report, hex.
	Digest string `json:"digest"`
	// Evidence are the participant's results in the report: nonce and
	// hex resultHash.
	Evidence []attestItem `json:"evidence"`
}

type attestItem struct {
	Nonce uint64 `json:"nonce"`
	Hash  string `json:"hash"`
}

// attest is ToolAttest's handler on a neighbour's session.
func (a *Agent) attest(caller string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var in attestIn
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("d2d.attest: %w", err)
	}
	d, err := hex.DecodeString(in.Digest)
	if err != nil || len(d) != sha256.Size {
		return nil, fmt.Errorf("d2d.attest: digest is not a hex SHA-256")
	}
	if len(in.Evidence) == 0 {
		return nil, fmt.Errorf("d2d.attest: no evidence of %s in the report", a.name)
	}
	for _, e := range in.Evidence {
		hb, err := hex.DecodeString(e.Hash)
		var h [32]byte
		if err != nil || len(hb) != 32 {
			return nil, fmt.Errorf("d2d.attest: bad hash for nonce %d", e.Nonce)
		}
		copy(h[:], hb)
		if !a.issued.check(caller, e.Nonce, h) {
			return nil, fmt.Errorf("d2d.attest: the result with nonce %d is not one %s issued to %s: refusing to countersign", e.Nonce, a.name, caller)
		}
	}
	sig := a.cfg.Signer.SignBytes(report.AttestBytes(d))
	return &mcp.CallToolResult{StructuredContent: map[string]string{"signer": a.name, "sig": sig},
		Content: []mcp.Content{&mcp.TextContent{Text: sig}}}, nil
}

// countersign asks every other participant to attest rep (in parallel);
// it returns their signatures. A participant that refuses or fails is
// left out (its results keep their own signatures).
func (a *Agent) countersign(ctx context.Context, rep *report.Report) map[string]string {
	digest, err := rep.Digest()
	if err != nil {
		return nil
	}
	per := map[string][]attestItem{}
	for _, e := range rep.Evidence {
		if e.Signer == a.name {
			continue
		}
		h, err := resultHash(e)
		if err != nil {
			continue
		}
		per[e.Signer] = append(per[e.Signer], attestItem{Nonce: e.Nonce, Hash: hex.EncodeToString(h[:])})
	}
	out := map[string]string{}
	var mu sync.Mutex
	var fns []func()
	for name, items := range per {
		fns = append(fns, func() {
			p, err := a.Connect(ctx, name)
			if err != nil {
				return
			}
			cctx, cancel := context.WithTimeout(ctx, a.cfg.CallTimeout)
			defer cancel()
			res, err := p.cs.CallTool(cctx, &mcp.CallToolParams{Name: ToolAttest, Arguments: attestIn{Digest: hex.EncodeToString(digest), Evidence: items}})
			if err != nil || res.IsError {
				a.log.Warn("attestation refused", "peer", name, "err", err)
				return
			}
			b, _ := json.Marshal(res.StructuredContent)
			var r struct{ Signer, Sig string }
			if json.Unmarshal(b, &r) != nil || r.Signer != name {
				return
			}
			mu.Lock()
			out[name] = r.Sig
			mu.Unlock()
		})
	}
	parallel(fns...)
	return out
}
