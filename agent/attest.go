package agent

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/sign"
)

// ToolAttest is the neighbour tool by which a participant countersigns a
// report: given the whole report (its digest is computed by the
// participant, never taken from the caller), it checks that the caller is
// the report's creator and that every result the report carries under
// the participant's name is one it issued to the caller, recently and for
// no other report, then countersigns (sign.PurposeCountersign).
const ToolAttest = "d2d.attest"

// CapAttest makes ToolAttest callable.
const CapAttest = "ietf-d2d-attest"

// maxIssued bounds the results an agent remembers per caller for attestation.
const maxIssued = 4096

// AttestWindow is how long after issuing a result an agent still
// countersigns a report carrying it: a run lasts seconds, a minute at
// most; a result older than that belongs to an earlier run.
const AttestWindow = 10 * time.Minute

// issued is a result issued to a caller, as attestation knows it.
type issued struct {
	hash [32]byte
	at   time.Time
	// report is the id of the report it was countersigned in ("" while
	// it is in none): a result is vouched for in one report only.
	report string
}

// issuedLog remembers, per caller, every result issued to it.
type issuedLog struct {
	mu sync.Mutex
	m  map[string]map[uint64]*issued
}

func (l *issuedLog) add(r sign.Result, at time.Time) {
	h, err := resultHash(r)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]map[uint64]*issued{}
	}
	m := l.m[r.Caller]
	if m == nil {
		m = map[uint64]*issued{}
		l.m[r.Caller] = m
	}
	m[r.Nonce] = &issued{hash: h, at: at}
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

// claim checks that every result of rs was issued to caller (same signed
// bytes and signature), no longer than AttestWindow before now, and is in
// no report but id; it then records them as countersigned in id. It
// claims all or nothing.
func (l *issuedLog) claim(caller, id string, rs []sign.Result, now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var got []*issued
	for _, r := range rs {
		h, err := resultHash(r)
		if err != nil {
			return err
		}
		is := l.m[caller][r.Nonce]
		switch {
		case r.Caller != caller || is == nil || is.hash != h:
			return fmt.Errorf("the result with nonce %d is not one issued to %s", r.Nonce, caller)
		case now.Sub(is.at) > AttestWindow:
			return fmt.Errorf("the result with nonce %d was issued %s ago, longer than a run lasts (%s): it belongs to an earlier run", r.Nonce, now.Sub(is.at).Round(time.Second), AttestWindow)
		case is.report != "" && is.report != id:
			return fmt.Errorf("the result with nonce %d was already countersigned in report %s", r.Nonce, is.report)
		}
		got = append(got, is)
	}
	for _, is := range got {
		is.report = id
	}
	return nil
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
	// Report is the report to countersign, its JSON (report.Parse);
	// its signatures, if any, are not read.
	Report json.RawMessage `json:"report"`
}

// attestOut is ToolAttest's result.
type attestOut struct {
	Signer string `json:"signer"`
	// Sig is the countersignature (report.Countersign).
	Sig string `json:"sig"`
}

// attest is ToolAttest's handler on a neighbour's session: caller is the
// neighbour the session's TLS handshake authenticated.
func (a *Agent) attest(caller string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var in attestIn
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("d2d.attest: %w", err)
	}
	if len(in.Report) == 0 {
		return nil, errors.New("d2d.attest: the report to countersign is required (report version 2: a digest alone is not countersigned)")
	}
	rep, err := report.Parse(in.Report)
	if err != nil {
		return nil, fmt.Errorf("d2d.attest: %w", err)
	}
	refuse := func(format string, args ...any) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("d2d.attest: "+format+": %s refuses to countersign", append(args, a.name)...)
	}
	if rep.Version != report.Version {
		return refuse("report version %d (version %d expected)", rep.Version, report.Version)
	}
	if rep.Creator != caller {
		return refuse("the report names %q its creator; %s countersigns only the caller's own reports", rep.Creator, a.name)
	}
	if b, ok := rep.Participants[a.name]; !ok || b.PublicKey != a.binding.PublicKey || b.Cert != a.binding.Cert {
		return refuse("the report does not carry %s's key binding", a.name)
	}
	var mine []sign.Result
	for _, e := range rep.Evidence {
		if e.Signer == a.name {
			mine = append(mine, e)
		}
	}
	if len(mine) == 0 {
		return refuse("the report carries no result of %s", a.name)
	}
	if err := a.issued.claim(caller, rep.ID, mine, a.cfg.Now()); err != nil {
		return refuse("%v", err)
	}
	sig, err := report.Countersign(a.cfg.Signer, rep)
	if err != nil {
		return nil, fmt.Errorf("d2d.attest: %w", err)
	}
	return &mcp.CallToolResult{StructuredContent: attestOut{Signer: a.name, Sig: sig},
		Content: []mcp.Content{&mcp.TextContent{Text: sig}}}, nil
}

// countersign asks every other participant of rep to attest it (in
// parallel). It returns the countersignatures, and why each participant
// that gave none refused or failed.
func (a *Agent) countersign(ctx context.Context, rep *report.Report) (sigs, refused map[string]string) {
	sigs, refused = map[string]string{}, map[string]string{}
	unsigned := *rep
	unsigned.Signatures = nil
	body, err := json.Marshal(unsigned)
	if err != nil {
		for name := range rep.Participants {
			if name != a.name {
				refused[name] = err.Error()
			}
		}
		return sigs, refused
	}
	digest, _ := rep.Digest()
	var mu sync.Mutex
	var fns []func()
	for name := range rep.Participants {
		if name == a.name {
			continue
		}
		fns = append(fns, func() {
			sig, err := a.attestOf(ctx, name, body)
			if err == nil {
				if key, ok := a.verifier.Key(name); !ok || sign.VerifyDigest(key, sign.PurposeCountersign, digest, sig) != nil {
					err = errors.New("its countersignature does not verify")
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				a.log.Warn("countersignature refused", "peer", name, "err", err)
				refused[name] = err.Error()
				return
			}
			sigs[name] = sig
		})
	}
	parallel(fns...)
	return sigs, refused
}

// attestOf calls ToolAttest on neighbour name with the report's JSON.
func (a *Agent) attestOf(ctx context.Context, name string, body []byte) (string, error) {
	p, err := a.Connect(ctx, name)
	if err != nil {
		return "", err
	}
	cctx, cancel := context.WithTimeout(ctx, a.cfg.CallTimeout)
	defer cancel()
	res, err := p.cs.CallTool(cctx, &mcp.CallToolParams{Name: ToolAttest, Arguments: attestIn{Report: body}})
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", errors.New(textOf(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out attestOut
	if json.Unmarshal(b, &out) != nil || out.Signer != name || out.Sig == "" {
		return "", fmt.Errorf("%s answered no countersignature of its own", name)
	}
	return out.Sig, nil
}

// countersignAll gathers the countersignature of every participant of rep
// but this agent. Every participant of a report must have signed it, so a
// participant that does not countersign (unreachable, untrusted, or
// refusing) is left out of the report (dropParticipants) and the others
// are asked again over the changed report, until every participant left
// has countersigned. Each round leaves out at least one participant.
func (a *Agent) countersignAll(ctx context.Context, rep *report.Report) map[string]string {
	for {
		sigs, refused := a.countersign(ctx, rep)
		if len(refused) == 0 {
			return sigs
		}
		dropParticipants(rep, refused)
	}
}

// dropParticipants leaves the participants of gone (name -> why) out of
// rep: their results leave the evidence (every index is renumbered), a
// finding that rested on them is no longer established (it becomes a
// not-measured "not-countersigned" finding, saying so), the hypothesis is
// the first finding still established, a proposal that rested on them or
// no longer fits the hypothesis is withdrawn, and each is listed under
// Untrusted with why.
func dropParticipants(rep *report.Report, gone map[string]string) {
	names := make([]string, 0, len(gone))
	for n := range gone {
		names = append(names, n)
	}
	sort.Strings(names)
	remap := make([]int, len(rep.Evidence))
	kept := []sign.Result{}
	for i, e := range rep.Evidence {
		if _, out := gone[e.Signer]; out {
			remap[i] = -1
			continue
		}
		remap[i] = len(kept)
		kept = append(kept, e)
	}
	rep.Evidence = kept
	renumber := func(idx []int) (out []int, lost bool) {
		out = []int{}
		for _, i := range idx {
			if i < 0 || i >= len(remap) || remap[i] < 0 {
				lost = true
				continue
			}
			out = append(out, remap[i])
		}
		return out, lost
	}
	for i := range rep.Findings {
		f := &rep.Findings[i]
		var lost bool
		f.Evidence, lost = renumber(f.Evidence)
		if lost && f.Cause != "not-measured" {
			f.Statement = fmt.Sprintf("not established, since %s did not countersign the report and this rested on its results: %s",
				strings.Join(names, ", "), f.Statement)
			f.Rule, f.Cause = "not-countersigned", "not-measured"
		}
	}
	rep.Hypothesis = nil
	for i := range rep.Findings {
		if rep.Findings[i].Cause != "not-measured" {
			h := rep.Findings[i]
			rep.Hypothesis = &h
			break
		}
	}
	var proposals []report.Proposal
	for _, p := range rep.Proposals {
		var lost bool
		p.Evidence, lost = renumber(p.Evidence)
		h := rep.Hypothesis
		if lost || h == nil || p.Device != h.Device || p.Interface != h.Interface || p.Cause != h.Cause {
			continue
		}
		proposals = append(proposals, p)
	}
	rep.Proposals = proposals
	if rep.Untrusted == nil {
		rep.Untrusted = map[string]string{}
	}
	for _, n := range names {
		delete(rep.Participants, n)
		if _, already := rep.Untrusted[n]; !already {
			rep.Untrusted[n] = "did not countersign the report: " + gone[n]
		}
	}
}
