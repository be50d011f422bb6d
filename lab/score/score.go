package score

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Truth is an injected incident, the ground truth of NIKA's scoring:
// the faulty devices and the fault names (none for a healthy network).
type Truth struct {
	Devices []string
	Names   []string
}

// Answer is a diagnosis in NIKA's three fields, as a controller's report
// gives them (is_anomaly, faulty_devices, root_cause_name).
type Answer struct {
	IsAnomaly     bool
	FaultyDevices []string
	RootCauseName []string
}

// Score is an answer's score against the truth, in NIKA's measures:
// detection (is_anomaly right), localization (F1 of faulty_devices) and
// root cause (F1 of root_cause_name). On a healthy network the F1s are 1
// when the answer names nothing, else 0.
type Score struct {
	Detection    bool    `json:"detection"`
	Localization float64 `json:"localization_f1"`
	RootCause    float64 `json:"root_cause_f1"`
}

// Of scores an answer against the truth.
func Of(a Answer, t Truth) Score {
	anomaly := len(t.Names) > 0
	return Score{
		Detection:    a.IsAnomaly == anomaly,
		Localization: f1(a.FaultyDevices, t.Devices),
		RootCause:    f1(a.RootCauseName, t.Names),
	}
}

// f1 is the F1 measure of a predicted set against a true one.
func f1(pred, truth []string) float64 {
	p, t := set(pred), set(truth)
	if len(p) == 0 && len(t) == 0 {
		return 1
	}
	tp := 0
	for x := range p {
		if t[x] {
			tp++
		}
	}
	if tp == 0 {
		return 0
	}
	prec, rec := float64(tp)/float64(len(p)), float64(tp)/float64(len(t))
	return 2 * prec * rec / (prec + rec)
}

func set(s []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return m
}

// Row is one line of a scoring table: a fault, the answer's score, the
// answer, and what the diagnosis took (its time and its MCP calls).
type Row struct {
	Fault     string
	Score     Score
	Answer    Answer
	ElapsedMS float64
	Calls     int
}

// WriteTable prints rows as a table with the means and the median and
// maximum time and calls.
func WriteTable(w io.Writer, rows []Row) {
	fmt.Fprintf(w, "%-58s %-5s %-5s %-5s %8s %6s  %s\n", "fault", "det", "loc", "rc", "time ms", "calls", "found")
	var det, loc, rc float64
	var times, calls []float64
	for _, r := range rows {
		d := 0.0
		if r.Score.Detection {
			d = 1
		}
		det, loc, rc = det+d, loc+r.Score.Localization, rc+r.Score.RootCause
		times, calls = append(times, r.ElapsedMS), append(calls, float64(r.Calls))
		found := strings.Join(r.Answer.RootCauseName, ",") + " @ " + strings.Join(r.Answer.FaultyDevices, ",")
		fmt.Fprintf(w, "%-58s %-5.2f %-5.2f %-5.2f %8.0f %6d  %s\n", r.Fault, d, r.Score.Localization, r.Score.RootCause, r.ElapsedMS, r.Calls, found)
	}
	n := float64(max(len(rows), 1))
	fmt.Fprintf(w, "%-58s %-5.2f %-5.2f %-5.2f\n", "mean", det/n, loc/n, rc/n)
	fmt.Fprintf(w, "time to diagnosis: median %.0f ms, max %.0f ms; MCP calls: median %.0f, max %.0f\n",
		median(times), slices.Max(append(times, 0)), median(calls), slices.Max(append(calls, 0)))
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
