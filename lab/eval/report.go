package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/netmcp/netmcp/lab/gen/suite"
	"github.com/netmcp/netmcp/lab/score"
)

// CaseResult is one case's outcome.
type CaseResult struct {
	ID      string   `json:"id"`
	Network string   `json:"network"`
	Routers int      `json:"routers"`
	Faults  []string `json:"faults"`
	// Truth is the expected answer, Answer the diagnoser's and Score the
	// answer's in NIKA's measures; when the diagnoser failed (Error says
	// why) the answer is empty and every measure 0.
	Truth  suite.Truth `json:"truth"`
	Answer Answer      `json:"answer"`
	Score  score.Score `json:"score"`
	// ElapsedMS is the time from the lab handed over to the answer, and
	// Calls the MCP tool calls the devices' servers answered meanwhile.
	ElapsedMS float64 `json:"elapsed_ms"`
	Calls     int     `json:"calls"`
	Error     string  `json:"error,omitempty"`
}

// Right tells whether the case is fully right: detection right and both
// F1s 1.
func (c CaseResult) Right() bool {
	return c.Error == "" && c.Score.Detection && c.Score.Localization == 1 && c.Score.RootCause == 1
}

// line is the case in one line of progress.
func (c CaseResult) line() string {
	verdict := "ok"
	switch {
	case c.Error != "":
		verdict = "ERROR " + firstLine(c.Error)
	case !c.Right():
		verdict = "WRONG got " + answerText(c.Answer)
	}
	return fmt.Sprintf("%s: %s: %s (%.1f s, %d calls)", c.ID, faultsText(c.Faults), verdict, c.ElapsedMS/1000, c.Calls)
}

// Measures are NIKA's three measures over a set of cases: the share of
// right detections and the mean F1s, and how many cases were fully right.
type Measures struct {
	Cases        int     `json:"cases"`
	Detection    float64 `json:"detection"`
	Localization float64 `json:"localization_f1"`
	RootCause    float64 `json:"root_cause_f1"`
	Right        int     `json:"fully_right"`
}

// Cost is the time and MCP calls per case over a set of cases.
type Cost struct {
	MedianMS    float64 `json:"time_median_ms"`
	P99MS       float64 `json:"time_p99_ms"`
	MedianCalls float64 `json:"calls_median"`
	P99Calls    float64 `json:"calls_p99"`
}

// FaultRow is the measures of the cases that inject one fault name (a
// case of two faults counts in both names' rows), or of the healthy cases
// (Name "healthy").
type FaultRow struct {
	Name string `json:"name"`
	Measures
}

// Band is the measures and cost of the cases on networks of Min to Max
// routers.
type Band struct {
	Name     string `json:"name"`
	Min      int    `json:"min_routers"`
	Max      int    `json:"max_routers"`
	Measures `json:"measures"`
	Cost     `json:"cost"`
}

// Bands are the network sizes the report breaks down by.
var Bands = []Band{{Name: "4-10", Min: 4, Max: 10}, {Name: "11-30", Min: 11, Max: 30}, {Name: "31-60", Min: 31, Max: 60}}

// Healthy counts the healthy cases and the false alarms on them (an
// anomaly reported, or any device or fault named).
type Healthy struct {
	Cases       int `json:"cases"`
	FalseAlarms int `json:"false_alarms"`
}

// Failure is a case not fully right: what was expected and what came.
type Failure struct {
	Case     string `json:"case"`
	Faults   string `json:"faults"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
	Error    string `json:"error,omitempty"`
}

// Report is a run's outcome: every case, and the summaries of them.
type Report struct {
	// Agent is "controller" or the agent command's program.
	Agent    string       `json:"agent"`
	Seed     int64        `json:"seed"`
	Overall  Measures     `json:"overall"`
	Cost     Cost         `json:"cost"`
	Healthy  Healthy      `json:"healthy"`
	ByFault  []FaultRow   `json:"by_fault"`
	Bands    []Band       `json:"bands"`
	Failures []Failure    `json:"failures"`
	Cases    []CaseResult `json:"cases"`
}

// summarize computes the summaries from the cases.
func (r *Report) summarize() {
	r.Overall, r.Cost = measure(r.Cases), cost(r.Cases)
	byName := map[string][]CaseResult{}
	r.Healthy = Healthy{}
	r.Failures = []Failure{}
	for _, c := range r.Cases {
		names := c.Truth.RootCauseName
		if len(names) == 0 {
			names = []string{"healthy"}
			r.Healthy.Cases++
			if c.Answer.IsAnomaly || len(c.Answer.FaultyDevices) > 0 || len(c.Answer.RootCauseName) > 0 {
				r.Healthy.FalseAlarms++
			}
		}
		for _, n := range names {
			byName[n] = append(byName[n], c)
		}
		if !c.Right() {
			r.Failures = append(r.Failures, Failure{Case: c.ID, Faults: faultsText(c.Faults), Expected: truthText(c.Truth),
				Got: answerText(c.Answer), Error: c.Error})
		}
	}
	r.ByFault = []FaultRow{}
	for _, n := range sortedKeys(byName) {
		r.ByFault = append(r.ByFault, FaultRow{Name: n, Measures: measure(byName[n])})
	}
	r.Bands = []Band{}
	for _, b := range Bands {
		var in []CaseResult
		for _, c := range r.Cases {
			if c.Routers >= b.Min && c.Routers <= b.Max {
				in = append(in, c)
			}
		}
		if len(in) > 0 {
			b.Measures, b.Cost = measure(in), cost(in)
			r.Bands = append(r.Bands, b)
		}
	}
}

func measure(cs []CaseResult) Measures {
	m := Measures{Cases: len(cs)}
	if len(cs) == 0 {
		return m
	}
	for _, c := range cs {
		if c.Score.Detection {
			m.Detection++
		}
		m.Localization += c.Score.Localization
		m.RootCause += c.Score.RootCause
		if c.Right() {
			m.Right++
		}
	}
	n := float64(len(cs))
	m.Detection, m.Localization, m.RootCause = m.Detection/n, m.Localization/n, m.RootCause/n
	return m
}

func cost(cs []CaseResult) Cost {
	var t, k []float64
	for _, c := range cs {
		t, k = append(t, c.ElapsedMS), append(k, float64(c.Calls))
	}
	return Cost{MedianMS: quantile(t, 0.5), P99MS: quantile(t, 0.99), MedianCalls: quantile(k, 0.5), P99Calls: quantile(k, 0.99)}
}

// quantile is the q-quantile of x by the nearest-rank method (the median
// of an even count is the mean of the middle two).
func quantile(x []float64, q float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	if q == 0.5 && len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	k := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(k, 0), len(s)-1)]
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// WriteText prints the report: the measures overall, per fault name and
// by network size, the false alarms, the cost, and the failures.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s on %d cases (seed %d)\n\n", r.Agent, len(r.Cases), r.Seed)
	fmt.Fprintln(tw, "fault\tcases\tdetection\tlocalization F1\troot cause F1\tfully right")
	row := func(name string, m Measures) {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%d\n", name, m.Cases, m.Detection, m.Localization, m.RootCause, m.Right)
	}
	for _, f := range r.ByFault {
		row(f.Name, f.Measures)
	}
	row("overall", r.Overall)
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "routers\tcases\tdetection\tlocalization F1\troot cause F1\ttime median/p99 s\tcalls median/p99")
	for _, b := range append(r.Bands, Band{Name: "all", Measures: r.Overall, Cost: r.Cost}) {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.1f / %.1f\t%.0f / %.0f\n", b.Name, b.Cases, b.Detection, b.Localization, b.RootCause,
			b.MedianMS/1000, b.P99MS/1000, b.MedianCalls, b.P99Calls)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nfalse alarms: %d of %d healthy cases\n", r.Healthy.FalseAlarms, r.Healthy.Cases)
	fmt.Fprintf(w, "fully right: %d of %d cases\n", r.Overall.Right, r.Overall.Cases)
	if len(r.Failures) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nfailures (%d):\n", len(r.Failures))
	for _, f := range r.Failures {
		fmt.Fprintf(w, "  %s: %s\n    expected %s\n    got      %s\n", f.Case, f.Faults, f.Expected, f.Got)
		if f.Error != "" {
			fmt.Fprintf(w, "    error    %s\n", firstLine(f.Error))
		}
	}
	return nil
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Submission is one case's answer in NIKA's submission format.
type Submission struct {
	ID         string      `json:"id"`
	IsAnomaly  bool        `json:"is_anomaly"`
	RootCauses []RootCause `json:"root_causes"`
}

// Submissions are the cases' answers in NIKA's submission format, in the
// order of the cases.
func (r *Report) Submissions() []Submission {
	out := []Submission{}
	for _, c := range r.Cases {
		out = append(out, Submission{ID: c.ID, IsAnomaly: c.Answer.IsAnomaly, RootCauses: c.Answer.RootCauses})
	}
	return out
}

// WriteSubmission writes the submissions as JSON lines, one case a line.
func (r *Report) WriteSubmission(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, s := range r.Submissions() {
		if err := enc.Encode(s); err != nil {
			return err
		}
	}
	return nil
}

func faultsText(f []string) string {
	if len(f) == 0 {
		return "healthy"
	}
	return strings.Join(f, " + ")
}

func truthText(t suite.Truth) string {
	return nikaText(t.IsAnomaly, t.RootCauseName, t.FaultyDevices)
}

func answerText(a Answer) string {
	return nikaText(a.IsAnomaly, a.RootCauseName, a.FaultyDevices)
}

func nikaText(anomaly bool, names, devices []string) string {
	if !anomaly && len(names) == 0 && len(devices) == 0 {
		return "no anomaly"
	}
	s := "[" + strings.Join(names, ",") + "] @ [" + strings.Join(devices, ",") + "]"
	if !anomaly {
		s += " (is_anomaly false)"
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
