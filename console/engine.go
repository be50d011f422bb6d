package console

import (
	"context"
	"io"
	"time"
)

// Engine is what the console asks intents of and applies fixes through:
// the controller's engine and its store of reports, wired by the command
// that starts the console (the console never imports the controller).
type Engine interface {
	// Ask parses and runs an intent in words (the intents of `netmcp
	// controller ask`), writing the plan and each call to progress as they
	// happen, and returns the report, saved. An intent that cannot be
	// parsed is an error, and nothing runs.
	Ask(ctx context.Context, intent string, progress io.Writer) (*Report, error)
	// Apply applies the proposed changes of saved report id, consented to
	// by consent (who approved them): confirmed commits, the intent run
	// again, the commits confirmed when it verifies and rolled back
	// otherwise, as `netmcp controller ask` does after a yes. The
	// devices' approval questions during the run carry the report's
	// correlation id (Console.Elicit answers them). It returns the report
	// with its remediation, saved.
	Apply(ctx context.Context, id, consent string, progress io.Writer) (*Report, error)
	// Reports lists the ids of the saved reports, oldest first.
	Reports() ([]string, error)
	// Report reads a saved report.
	Report(id string) (*Report, error)
}

// Report is a controller's report, as the console shows it: the members
// of the documented report schema (`netmcp controller ask --json`) it
// reads, decoded from that JSON.
type Report struct {
	ID string `json:"id"`
	// IntentText is the intent in words (not part of the schema: the
	// engine fills it).
	IntentText      string            `json:"intent_text,omitempty"`
	CorrelationID   string            `json:"correlation_id"`
	Started         time.Time         `json:"started"`
	ElapsedMS       float64           `json:"elapsed_ms"`
	IsAnomaly       bool              `json:"is_anomaly"`
	FaultyDevices   []string          `json:"faulty_devices"`
	Diagnosis       string            `json:"diagnosis"`
	Verified        *bool             `json:"verified,omitempty"`
	RootCauses      []Cause           `json:"root_causes"`
	ProposedChanges []Change          `json:"proposed_changes"`
	Steps           []Step            `json:"steps"`
	Calls           []Call            `json:"calls"`
	Unreachable     map[string]string `json:"unreachable,omitempty"`
	Remediation     *Remediation      `json:"remediation,omitempty"`
}

// Cause is a root cause with its evidence.
type Cause struct {
	Name     string     `json:"name"`
	Devices  []string   `json:"devices"`
	Where    string     `json:"where,omitempty"`
	Summary  string     `json:"summary"`
	Evidence []Evidence `json:"evidence"`
	Fix      string     `json:"fix,omitempty"`
}

// Evidence is what one call showed.
type Evidence struct {
	Call   int    `json:"call"`
	Device string `json:"device"`
	Tool   string `json:"tool"`
	Showed string `json:"showed"`
}

// Change is a proposed change to one device, with its diff.
type Change struct {
	Device  string   `json:"device"`
	Summary string   `json:"summary"`
	Diff    string   `json:"diff"`
	CLI     []string `json:"cli,omitempty"`
	Cause   string   `json:"cause,omitempty"`
	Applied *Outcome `json:"applied,omitempty"`
}

// Outcome is what happened to a change when it was applied.
type Outcome struct {
	Committed bool   `json:"committed"`
	Confirmed bool   `json:"confirmed"`
	Rolled    bool   `json:"rolled_back"`
	Error     string `json:"error,omitempty"`
}

// Step is one stage of the plan.
type Step struct {
	N     int    `json:"n"`
	Title string `json:"title"`
}

// Call is one MCP call made for the intent.
type Call struct {
	N         int     `json:"n"`
	Step      int     `json:"step"`
	Device    string  `json:"device"`
	Tool      string  `json:"tool"`
	ElapsedMS float64 `json:"elapsed_ms"`
	Error     string  `json:"error,omitempty"`
	Summary   string  `json:"summary,omitempty"`
}

// Remediation is the consent and the result of applying the changes.
type Remediation struct {
	Consent  string `json:"consent"`
	Applied  bool   `json:"applied"`
	Verified bool   `json:"verified"`
	Result   string `json:"result"`
}

// pending tells whether the report's fix was neither applied nor decided.
func (r *Report) pending() bool { return len(r.ProposedChanges) > 0 && r.Remediation == nil }
