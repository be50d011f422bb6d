// Package report is the roll-up report of a device-to-device collaboration
// (the troubleshooting draft's section 5, step 5): who made it and when,
// the intent, the structured hypothesis the correlation rules reached,
// every signed result it rests on, the certificate-bound keys of every
// participant, the peers marked untrusted, and the creator's signature
// over the whole. Verify checks all of it offline against the CA.
package report

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/netmcp/netmcp/d2d/sign"
)

// URIPrefix is the draft's report resource URI prefix; a report's URI is
// URIPrefix + its id.
const URIPrefix = "urn:ietf:params:xml:ns:yang:ietf-mcp/report/"

// Finding is one conclusion of a correlation rule.
type Finding struct {
	// Rule names the rule that fired.
	Rule string `json:"rule"`
	// Device and Interface locate the fault; Direction is "A->B".
	Device    string `json:"device"`
	Interface string `json:"interface,omitempty"`
	Direction string `json:"direction,omitempty"`
	// Cause is a short machine-readable cause: "egress-filter",
	// "ingress-filter", "link-loss", "link-corruption", "drop-before".
	Cause string `json:"cause"`
	// Statement is the finding in one sentence, with its numbers.
	Statement string `json:"statement"`
	// Evidence are indexes into Report.Evidence.
	Evidence []int `json:"evidence"`
}

// Version is the report format this package writes and verifies. In
// version 2 every signature of a report names its purpose
// (sign.PurposeCreate for the creator, sign.PurposeCountersign for every
// other participant) and every participant must have signed; version 1
// reports are refused, since a version 1 countersignature could be
// obtained for any digest.
const Version = 2

// Report is a roll-up report.
type Report struct {
	// Version is the report format, Version.
	Version int      `json:"version"`
	ID      string   `json:"id"`
	URI     string   `json:"uri"`
	Creator string   `json:"creator"`
	Created string   `json:"created"`
	Intent  string   `json:"intent"`
	Path    []string `json:"path"`
	// Hypothesis is the primary finding (nil when nothing is wrong).
	Hypothesis *Finding `json:"hypothesis"`
	// Findings are every finding, the primary first.
	Findings []Finding `json:"findings"`
	// Evidence are the signed results, each signed by its participant.
	Evidence []sign.Result `json:"evidence"`
	// Participants bind each participant's Ed25519 key to its device
	// certificate: the creator and the signer of every result.
	Participants map[string]sign.Binding `json:"participants"`
	// Untrusted are the peers that timed out, failed authentication or
	// did not countersign.
	Untrusted map[string]string `json:"untrusted,omitempty"`
	// Fallback is the controller's part of the run, when a path device
	// was untrusted and the agent has a controller to fall back to;
	// signed with the rest of the report.
	Fallback *Fallback `json:"fallback,omitempty"`
	// Proposals are the mitigations the run proposes (none is applied
	// by the run): each changes one device's configuration, and only
	// that device's agent applies it, with the operator's consent,
	// through the device's approval gate.
	Proposals []Proposal `json:"proposals,omitempty"`
	// Signatures holds, per participant, its Ed25519 signature of the
	// report's Digest: the creator's (sign.PurposeCreate), and every
	// other participant's countersignature (sign.PurposeCountersign,
	// given only after it checked that the results carried under its
	// name are ones it issued to the creator for this report). Every
	// participant has one; a device that could not countersign is not a
	// participant (its results are left out, and it is listed under
	// Untrusted). The member is not part of the digest.
	Signatures map[string]string `json:"signatures,omitempty"`
}

// Fallback is what the controller answered when the agent fell back to it.
type Fallback struct {
	// Controller is the controller's MCP endpoint.
	Controller string `json:"controller"`
	// Reason names the untrusted devices that made the agent fall back.
	Reason string `json:"reason"`
	// Report is the controller's report of the same intent (its ask
	// tool's structured result), when it answered.
	Report json.RawMessage `json:"report,omitempty"`
	// Error is why the controller could not answer.
	Error string `json:"error,omitempty"`
}

// Proposal is a mitigation: a change of one device's configuration that
// removes the cause of a finding, as the controller's remediation
// proposes it (a YANG edit, its diff, the equivalent CLI).
type Proposal struct {
	// Device is the device to change; Interface and Direction are the
	// finding's; Cause is the finding's cause ("egress-filter").
	Device    string `json:"device"`
	Interface string `json:"interface,omitempty"`
	Direction string `json:"direction,omitempty"`
	Cause     string `json:"cause"`
	// Summary and Fix say what the change does, in words.
	Summary string `json:"summary"`
	Fix     string `json:"fix,omitempty"`
	// Edit are the network.yang.edit operations, on the candidate.
	Edit []EditOp `json:"edit"`
	// Diff is the change as a unified diff of the running configuration;
	// CLI the device's commands.
	Diff string   `json:"diff"`
	CLI  []string `json:"cli,omitempty"`
	// Evidence are indexes into Report.Evidence: the signed
	// configuration read the proposal rests on.
	Evidence []int `json:"evidence"`
}

// EditOp is one operation of network.yang.edit.
type EditOp struct {
	Operation string          `json:"operation"`
	Path      string          `json:"path"`
	Value     json.RawMessage `json:"value,omitempty"`
}

// reportDomain precedes the canonical report in the bytes its digest is
// taken of.
const reportDomain = "netmcp-d2d-report-v2\x00"

// SignedBytes returns the bytes whose SHA-256 is the report's digest:
// reportDomain followed by the canonical JSON (sign.Canonical) of the
// report without its "signatures" member.
func (r Report) SignedBytes() ([]byte, error) {
	r.Signatures = nil // omitted from the JSON
	c, err := sign.Canonical(r)
	if err != nil {
		return nil, err
	}
	return append([]byte(reportDomain), c...), nil
}

// Digest is the SHA-256 of SignedBytes: what every participant signs,
// each under its purpose.
func (r Report) Digest() ([]byte, error) {
	b, err := r.SignedBytes()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	return sum[:], nil
}

// Seal signs r as its creator (sign.PurposeCreate), keeping the other
// participants' countersignatures.
func (r *Report) Seal(s *sign.Signer, countersigs map[string]string) error {
	if s.ID() != r.Creator {
		return fmt.Errorf("report: signer %q is not the creator %q", s.ID(), r.Creator)
	}
	if r.Version != Version {
		return fmt.Errorf("report: version %d; this package seals version %d", r.Version, Version)
	}
	d, err := r.Digest()
	if err != nil {
		return err
	}
	sig, err := s.SignDigest(sign.PurposeCreate, d)
	if err != nil {
		return err
	}
	r.Signatures = map[string]string{}
	for k, v := range countersigs {
		if k != r.Creator {
			r.Signatures[k] = v
		}
	}
	r.Signatures[r.Creator] = sig
	return nil
}

// Countersign returns s's countersignature of r (sign.PurposeCountersign
// over r's digest). The caller is responsible for having checked what it
// vouches for: that the results r carries under s's name are ones s issued
// to r's creator.
func Countersign(s *sign.Signer, r Report) (string, error) {
	if s.ID() == r.Creator {
		return "", fmt.Errorf("report: %s is the creator; it seals, it does not countersign", s.ID())
	}
	if r.Version != Version {
		return "", fmt.Errorf("report: version %d; this package countersigns version %d", r.Version, Version)
	}
	d, err := r.Digest()
	if err != nil {
		return "", err
	}
	return s.SignDigest(sign.PurposeCountersign, d)
}

// Check is one verified signature.
type Check struct {
	Signer string `json:"signer"`
	What   string `json:"what"` // "report" or "evidence[i] tool"
	Nonce  uint64 `json:"nonce,omitempty"`
}

// Verify checks every signature of r: its version; each participant's key
// binding (v: against the CA, at the time of verification); the creator's
// signature of the report (sign.PurposeCreate) and a countersignature
// (sign.PurposeCountersign) of every other participant, and no signature
// of anyone else; every evidence result's signature, made for the creator,
// by a participant, with no nonce of a signer used twice; and that every
// evidence index cited exists. It returns the checks done, or the first
// failure. Verify covers the Report value: decode a report's JSON with
// Parse, which refuses content the value does not hold.
func Verify(r Report, v BindingVerifier) ([]Check, error) {
	if r.Version != Version {
		return nil, fmt.Errorf("report: version %d is not accepted (this verifier accepts version %d only)", r.Version, Version)
	}
	keys := map[string]ed25519.PublicKey{}
	names := make([]string, 0, len(r.Participants))
	for n := range r.Participants {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b := r.Participants[n]
		if b.Identity != n {
			return nil, fmt.Errorf("report: participant %q carries the binding of %q", n, b.Identity)
		}
		k, err := v(b)
		if err != nil {
			return nil, fmt.Errorf("report: participant %s: %w", n, err)
		}
		keys[n] = k
	}
	var checks []Check
	if _, ok := keys[r.Creator]; !ok {
		return nil, fmt.Errorf("report: creator %q is not a participant", r.Creator)
	}
	d, err := r.Digest()
	if err != nil {
		return nil, err
	}
	for n := range r.Signatures {
		if _, ok := keys[n]; !ok {
			return nil, fmt.Errorf("report: a signature of %q, who is not a participant", n)
		}
	}
	for _, n := range names {
		sig, ok := r.Signatures[n]
		purpose, what := sign.PurposeCountersign, "report (countersigned)"
		if n == r.Creator {
			purpose, what = sign.PurposeCreate, "report (creator)"
		}
		if !ok {
			if n == r.Creator {
				return nil, fmt.Errorf("report: no signature of the creator %q", n)
			}
			return nil, fmt.Errorf("report: participant %s has not countersigned the report", n)
		}
		if err := sign.VerifyDigest(keys[n], purpose, d, sig); err != nil {
			return nil, fmt.Errorf("report: %s's signature of the report does not verify as its %s signature: the report was altered: %v", n, purpose, err)
		}
		checks = append(checks, Check{Signer: n, What: what})
	}
	seen := map[string]map[uint64]bool{}
	for i, e := range r.Evidence {
		k, ok := keys[e.Signer]
		if !ok {
			return nil, fmt.Errorf("report: evidence[%d] is signed by %q, not a participant", i, e.Signer)
		}
		if e.Caller != r.Creator {
			return nil, fmt.Errorf("report: evidence[%d] from %s was made for %q, not for the creator %q", i, e.Signer, e.Caller, r.Creator)
		}
		if err := sign.CheckSignature(e, k); err != nil {
			return nil, fmt.Errorf("report: evidence[%d] (%s %s): %w", i, e.Signer, e.Tool, err)
		}
		if seen[e.Signer] == nil {
			seen[e.Signer] = map[uint64]bool{}
		}
		if seen[e.Signer][e.Nonce] {
			return nil, fmt.Errorf("report: evidence[%d]: %s's nonce %d is used twice (a replayed result)", i, e.Signer, e.Nonce)
		}
		seen[e.Signer][e.Nonce] = true
		checks = append(checks, Check{Signer: e.Signer, What: fmt.Sprintf("evidence[%d] %s", i, e.Tool), Nonce: e.Nonce})
	}
	cites := func(what string, idx []int) error {
		for _, i := range idx {
			if i < 0 || i >= len(r.Evidence) {
				return fmt.Errorf("report: %s cites evidence[%d], which does not exist", what, i)
			}
		}
		return nil
	}
	if h := r.Hypothesis; h != nil {
		if err := cites(fmt.Sprintf("the hypothesis %q", h.Rule), h.Evidence); err != nil {
			return nil, err
		}
	}
	for _, f := range r.Findings {
		if err := cites(fmt.Sprintf("finding %q", f.Rule), f.Evidence); err != nil {
			return nil, err
		}
	}
	for _, p := range r.Proposals {
		if err := cites(fmt.Sprintf("the proposal for %s", p.Device), p.Evidence); err != nil {
			return nil, err
		}
	}
	return checks, nil
}

// CAVerifier is the BindingVerifier of a CA: sign.Binding.Verify against
// roots at now, the time of verification (give or take
// sign.MaxClockSkew), never the report's own Created, which its signer
// chooses.
func CAVerifier(roots *x509.CertPool, now time.Time) BindingVerifier {
	return func(b sign.Binding) (ed25519.PublicKey, error) { return b.Verify(roots, now) }
}

// BindingVerifier checks a participant's key binding and returns its key
// (sign.Binding.Verify against the CA).
type BindingVerifier func(sign.Binding) (ed25519.PublicKey, error)

// ErrNotFound is a report id the store does not hold.
var ErrNotFound = errors.New("report: not found")
