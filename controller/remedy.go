package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/remedy"
	"github.com/netmcp/netmcp/yang"
)

// confirmWindow is the rollback window of the confirmed commit of a
// remediation, in seconds: the device rolls the change back by itself if
// the controller dies before confirming it.
const confirmWindow = remedy.ConfirmWindow

// approvalTokenRe finds the single-use token of a gate's refusal.
var approvalTokenRe = regexp.MustCompile(`"?approvalToken"?\s*[:=]\s*"([^"]+)"`)

// Remediate applies the report's proposed changes, which the operator
// has consented to (consent names who: "operator" or "policy"): each
// device's edit is committed with a confirmed commit, the intent is run
// again, and the commits are confirmed only when the causes they fix are
// gone; otherwise they are cancelled (rolled back). The report's
// Remediation and each change's Applied record what happened.
func (c *Controller) Remediate(ctx context.Context, rep *Report, consent string) error {
	if len(rep.ProposedChanges) == 0 {
		return errors.New("controller: the report proposes no change")
	}
	ctx = client.WithCorrelationID(ctx, rep.CorrelationID)
	r := &run{c: c, ctx: ctx, rep: rep, step: len(rep.Steps)}
	r.begin("apply the consented changes as confirmed commits (" + fmt.Sprint(confirmWindow) + " s window)")
	rem := &Remediation{Consent: consent}
	rep.Remediation = rem
	var committed []int
	for i := range rep.ProposedChanges {
		ch := &rep.ProposedChanges[i]
		ch.Applied = &Outcome{}
		if err := r.applyEdit(ch); err != nil {
			ch.Applied.Error = r.lastError(err)
			continue
		}
		if _, err := r.approved(ch.Device, netproto.ToolCommit, map[string]any{"confirmed": confirmWindow, "comment": "netmcp ask " + rep.ID + ": " + ch.Summary}); err != nil {
			ch.Applied.Error = err.Error()
			continue
		}
		ch.Applied.Committed = true
		committed = append(committed, i)
	}
	rem.Applied = len(committed) > 0
	if !rem.Applied {
		rem.Result = "no change could be applied; nothing was committed"
		return nil
	}
	r.begin("verify the intent again")
	again, err := c.Ask(ctx, rep.Intent)
	verified := err == nil && fixed(rep, again, committed)
	rem.Verified = verified
	r.begin(map[bool]string{true: "verification passed: confirm the commits", false: "verification failed: cancel the commits (roll back)"}[verified])
	for _, i := range committed {
		ch := &rep.ProposedChanges[i]
		args := map[string]any{"cancel": true}
		if verified {
			args = map[string]any{"confirm": true}
		}
		if _, err := r.approved(ch.Device, netproto.ToolCommit, args); err != nil {
			ch.Applied.Error = err.Error()
			continue
		}
		ch.Applied.Confirmed, ch.Applied.Rolled = verified, !verified
	}
	if again != nil {
		rep.Calls = append(rep.Calls, renumber(again.Calls, len(rep.Calls), len(rep.Steps))...)
	}
	switch {
	case verified:
		rem.Result = fmt.Sprintf("applied %d change(s), verified (%s), confirmed", len(committed), againWords(again))
	case err != nil:
		rem.Result = fmt.Sprintf("applied %d change(s); the verification could not run (%v): rolled back", len(committed), err)
	default:
		rem.Result = fmt.Sprintf("applied %d change(s); verification failed (%s): rolled back", len(committed), againWords(again))
	}
	r.progress("remediation: %s", rem.Result)
	return nil
}

func againWords(r *Report) string {
	if r == nil {
		return "no report"
	}
	return r.Diagnosis
}

// renumber appends a verification run's calls after the report's own.
func renumber(calls []Call, base, step int) []Call {
	out := slices.Clone(calls)
	for i := range out {
		out[i].N += base
		out[i].Step = step
	}
	return out
}

// fixed tells whether the causes the applied changes address are gone in
// the report of the verification run (and a verification intent holds).
func fixed(before, after *Report, applied []int) bool {
	if after == nil {
		return false
	}
	if after.Verified != nil && !*after.Verified {
		return false
	}
	for _, i := range applied {
		ch := before.ProposedChanges[i]
		for _, c := range after.RootCauses {
			if c.Name == ch.Cause && slices.Contains(c.Devices, ch.Device) {
				return false
			}
		}
	}
	return true
}

// applyEdit writes a change into the device's candidate.
func (r *run) applyEdit(ch *Change) error {
	ops := make([]map[string]any, len(ch.Edit))
	for i, e := range ch.Edit {
		op := map[string]any{"operation": e.Operation, "path": e.Path}
		if e.Value != nil {
			op["value"] = e.Value
		}
		ops[i] = op
	}
	out, err := r.approved(ch.Device, netproto.ToolYangEdit, map[string]any{"target": "candidate", "edit": ops})
	if err != nil {
		return err
	}
	if d := yang.Text(yang.Member(out, "diff")); d != "" {
		ch.Diff = d
	}
	return nil
}

// approved makes a write call; when the device's approval gate refuses it
// with a single-use approvalToken (a client that does not answer
// elicitations), the call is repeated with the token: the operator's
// consent was given before any change was made.
func (r *run) approved(dev, tool string, args map[string]any) (any, error) {
	out, _, err := r.call(dev, tool, args)
	if err == nil {
		return out, nil
	}
	text := err.Error()
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		text += string(je.Data)
	}
	if b, e := json.Marshal(out); e == nil {
		text += string(b)
	}
	m := approvalTokenRe.FindStringSubmatch(text)
	if m == nil {
		return nil, err
	}
	with := map[string]any{"approvalToken": m[1]}
	for k, v := range args {
		with[k] = v
	}
	out, _, err = r.call(dev, tool, with)
	return out, err
}

// lastError is the error of the last recorded call (with the device's
// details), or err's text.
func (r *run) lastError(err error) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.rep.Calls); n > 0 && r.rep.Calls[n-1].Error != "" {
		return r.rep.Calls[n-1].Error
	}
	return err.Error()
}
