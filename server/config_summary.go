package server

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/redact"
)

// secretNames knows the secret leaf names and schema paths of the data
// models (it is never taught a secret value): summaries mask by them.
var secretNames = redact.New(redact.Options{})

// maxSummaryValue bounds the JSON of one edit's value in an approval summary.
const maxSummaryValue = 600

// editSummary describes one YANG edit for the operator: operation, path and
// value (shortened).
func editSummary(e device.Edit) string {
	op := e.Operation
	if op == "" {
		op = device.OpMerge
	}
	if e.Value == nil || op == device.OpDelete || op == device.OpRemove {
		return fmt.Sprintf("%s %s", op, e.Path)
	}
	// A value sent to a secret leaf is masked by the path's names (never
	// by value: the summary echoes the caller's input): approval prompts
	// and the audit records of approval decisions never show it.
	masked, _ := secretNames.ValueAtStructural(e.Path, e.Value)
	b, err := json.Marshal(masked)
	if err != nil {
		return fmt.Sprintf("%s %s", op, e.Path)
	}
	v := string(b)
	if len(v) > maxSummaryValue {
		v = v[:maxSummaryValue] + fmt.Sprintf("... (%d bytes)", len(b))
	}
	return fmt.Sprintf("%s %s = %s", op, e.Path, v)
}

// shownArguments are a call's arguments as the approval question shows
// them: each edit's value masked by the path it is sent to, and the
// secrets the other strings show by syntax or leaf name (never by value,
// as in summaries: the question echoes the caller's input).
func shownArguments(args json.RawMessage) json.RawMessage {
	return newSecretMasker(secretNames, "").structuralOnly().arguments(args)
}

// rollbackSummary describes the commit a rollback returns to, from the
// history: ": commit ID of TIME by USER (COMMENT)".
func (s *Server) rollbackSummary(ctx context.Context, id string) string {
	if s.cfg == nil {
		return ""
	}
	hist, err := s.cfg.History(ctx)
	if err != nil || len(hist) == 0 {
		return ""
	}
	var target *device.CommitInfo
	if id == "" {
		if len(hist) < 2 {
			return " (the initial configuration)"
		}
		target = &hist[1]
	} else {
		for i := range hist {
			if hist[i].ID == id {
				target = &hist[i]
			}
		}
	}
	if target == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, ": commit %s of %s", target.ID, target.Time.UTC().Format(time.RFC3339))
	if who := cmp.Or(target.User, target.Session); who != "" {
		fmt.Fprintf(&b, " by %s", who)
	}
	if target.Comment != "" {
		fmt.Fprintf(&b, " (%q)", target.Comment)
	}
	fmt.Fprintf(&b, "; the last commit is %s", hist[0].ID)
	return b.String()
}
