package controller

import (
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/remedy"

	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Report is the outcome of one intent: the schema of `netmcp ask --json`
// (docs/controller.md). IsAnomaly, FaultyDevices and RootCauseName are
// NIKA's fields.
type Report struct {
	ID            string    `json:"id"`
	Intent        Intent    `json:"intent"`
	CorrelationID string    `json:"correlation_id"`
	Started       time.Time `json:"started"`
	ElapsedMS     float64   `json:"elapsed_ms"`

	// IsAnomaly is true when a fault was found.
	IsAnomaly bool `json:"is_anomaly"`
	// FaultyDevices are the devices (routers and hosts) the root causes
	// name, sorted.
	FaultyDevices []string `json:"faulty_devices"`
	// RootCauseName lists the fault names of the root causes, sorted: the
	// names of topology.Catalog (NIKA's, and the few netmcp adds where NIKA
	// has none, e.g. link_high_latency; Cause.NIKA tells which); a cause
	// named outside the catalog is in RootCauses only.
	RootCauseName []string `json:"root_cause_name"`
	// Diagnosis is the finding in one sentence.
	Diagnosis string `json:"diagnosis"`
	// Verified tells, for a verification intent (reachability, path MTU),
	// whether the intent holds.
	Verified *bool `json:"verified,omitempty"`
	// Facts are the measured values an intent asks for (path_mtu, loss...).
	Facts map[string]any `json:"facts,omitempty"`

	RootCauses      []Cause  `json:"root_causes"`
	ProposedChanges []Change `json:"proposed_changes"`
	Steps           []Step   `json:"steps"`
	Calls           []Call   `json:"calls"`
	// Unreachable lists devices that could not be read, with the error.
	Unreachable map[string]string `json:"unreachable,omitempty"`
	// Remediation records what happened to the proposed changes.
	Remediation *Remediation `json:"remediation,omitempty"`
}

// Cause is one root cause with its evidence and fix.
type Cause struct {
	// Name is the NIKA fault name (or a netmcp name when NIKA has none).
	Name string `json:"name"`
	// NIKA tells whether Name is one of NIKA's names.
	NIKA bool `json:"nika"`
	// Devices are the faulty devices.
	Devices []string `json:"devices"`
	// Where is the interface, link or neighbour concerned.
	Where    string     `json:"where,omitempty"`
	Summary  string     `json:"summary"`
	Evidence []Evidence `json:"evidence"`
	// Fix is the recommended remediation in words; Changes make it concrete.
	Fix     string   `json:"fix,omitempty"`
	Changes []Change `json:"changes,omitempty"`
}

// Evidence is what one call on one device showed.
type Evidence struct {
	// Call is the number of the call in Report.Calls (0: derived from
	// several calls, named in Showed).
	Call   int    `json:"call"`
	Device string `json:"device"`
	Tool   string `json:"tool"`
	Showed string `json:"showed"`
}

// Step is one stage of the plan.
type Step struct {
	N     int    `json:"n"`
	Title string `json:"title"`
}

// Call is one MCP tool call made for the intent.
type Call struct {
	N         int            `json:"n"`
	Step      int            `json:"step"`
	Device    string         `json:"device"`
	Tool      string         `json:"tool"`
	Args      map[string]any `json:"args,omitempty"`
	ElapsedMS float64        `json:"elapsed_ms"`
	Error     string         `json:"error,omitempty"`
	// Summary is what the call showed, in a line.
	Summary string `json:"summary,omitempty"`
}

// Change is a concrete change to one device: a YANG edit (what the
// controller applies) with its CLI equivalent in words and a diff.
type Change struct {
	Device  string   `json:"device"`
	Summary string   `json:"summary"`
	Edit    []EditOp `json:"edit"`
	Diff    string   `json:"diff"`
	CLI     []string `json:"cli,omitempty"`
	Cause   string   `json:"cause,omitempty"`
	Applied *Outcome `json:"applied,omitempty"`
}

// EditOp is one operation of network.yang.edit.
type EditOp = remedy.EditOp

// Outcome is what happened when a change was applied.
type Outcome struct {
	Committed bool   `json:"committed"`
	Confirmed bool   `json:"confirmed"`
	Rolled    bool   `json:"rolled_back"`
	Error     string `json:"error,omitempty"`
}

// Remediation records the consent and the result of applying changes.
type Remediation struct {
	Consent  string `json:"consent"` // "operator", "policy", "declined", "not-asked"
	Applied  bool   `json:"applied"`
	Verified bool   `json:"verified"`
	// Result is a sentence: confirmed, rolled back, declined...
	Result string `json:"result"`
}

// finish fills the NIKA fields from the causes.
func (r *Report) finish() {
	devs := map[string]bool{}
	names := map[string]bool{}
	for _, c := range r.RootCauses {
		for _, d := range c.Devices {
			devs[d] = true
		}
		if _, ok := topology.LookupFault(c.Name); ok {
			names[c.Name] = true
		}
		r.ProposedChanges = append(r.ProposedChanges, c.Changes...)
	}
	r.FaultyDevices = sortedKeys(devs)
	r.RootCauseName = sortedKeys(names)
	r.IsAnomaly = len(r.RootCauses) > 0
	if r.FaultyDevices == nil {
		r.FaultyDevices = []string{}
	}
	if r.RootCauseName == nil {
		r.RootCauseName = []string{}
	}
	if r.RootCauses == nil {
		r.RootCauses = []Cause{}
	}
	if r.ProposedChanges == nil {
		r.ProposedChanges = []Change{}
	}
	if r.Diagnosis == "" {
		switch len(r.RootCauses) {
		case 0:
			r.Diagnosis = "No fault found."
		case 1:
			r.Diagnosis = r.RootCauses[0].Summary
		default:
			var s []string
			for _, c := range r.RootCauses {
				s = append(s, c.Summary)
			}
			r.Diagnosis = fmt.Sprintf("%d root causes: %s", len(s), strings.Join(s, "; "))
		}
	}
}

// WriteText prints the report for an operator.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "Intent:    %s\n", r.Intent.String())
	fmt.Fprintf(w, "Report:    %s (correlation id %s)\n", r.ID, r.CorrelationID)
	fmt.Fprintf(w, "Diagnosis: %s\n", r.Diagnosis)
	if r.Verified != nil {
		fmt.Fprintf(w, "Verified:  %v\n", *r.Verified)
	}
	for _, k := range sortedKeys(r.Facts) {
		fmt.Fprintf(w, "  %s: %v\n", k, r.Facts[k])
	}
	for i, c := range r.RootCauses {
		fmt.Fprintf(w, "\nRoot cause %d: %s on %s", i+1, c.Name, strings.Join(c.Devices, ", "))
		if c.Where != "" {
			fmt.Fprintf(w, " (%s)", c.Where)
		}
		fmt.Fprintf(w, "\n  %s\n  Evidence:\n", c.Summary)
		for _, e := range c.Evidence {
			ref := ""
			if e.Call > 0 {
				ref = fmt.Sprintf("#%d ", e.Call)
			}
			fmt.Fprintf(w, "    - %s%s on %s: %s\n", ref, e.Tool, e.Device, e.Showed)
		}
		if c.Fix != "" {
			fmt.Fprintf(w, "  Recommended fix: %s\n", c.Fix)
		}
		for _, ch := range c.Changes {
			fmt.Fprintf(w, "  Proposed change on %s: %s\n%s", ch.Device, ch.Summary, indent(ch.Diff, "    "))
		}
	}
	if len(r.Unreachable) > 0 {
		fmt.Fprintln(w, "\nDevices not read:")
		for _, d := range sortedKeys(r.Unreachable) {
			fmt.Fprintf(w, "  %s: %s\n", d, r.Unreachable[d])
		}
	}
	if r.Remediation != nil {
		fmt.Fprintf(w, "\nRemediation: %s\n", r.Remediation.Result)
	}
	failed := 0
	for _, c := range r.Calls {
		if c.Error != "" {
			failed++
		}
	}
	fmt.Fprintf(w, "\nis_anomaly=%v faulty_devices=[%s] root_cause_name=[%s]\n", r.IsAnomaly,
		strings.Join(r.FaultyDevices, ","), strings.Join(r.RootCauseName, ","))
	fmt.Fprintf(w, "%d steps, %d MCP calls (%d failed), %.0f ms\n", len(r.Steps), len(r.Calls), failed, r.ElapsedMS)
}

func indent(s, pre string) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pre + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// addCause adds a cause unless one with the same name, devices and place
// is there already (then merges the evidence).
func (r *Report) addCause(c Cause) {
	slices.Sort(c.Devices)
	c.Devices = slices.Compact(c.Devices)
	var ev []Evidence
	for _, e := range c.Evidence {
		if !slices.Contains(ev, e) {
			ev = append(ev, e)
		}
	}
	c.Evidence = ev
	for i := range r.RootCauses {
		o := &r.RootCauses[i]
		if o.Name == c.Name && slices.Equal(o.Devices, c.Devices) && o.Where == c.Where {
			for _, e := range c.Evidence {
				if !slices.Contains(o.Evidence, e) {
					o.Evidence = append(o.Evidence, e)
				}
			}
			return
		}
	}
	r.RootCauses = append(r.RootCauses, c)
}
