package diag

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // PST8PDT for dig's when_epoch
)

// corpusDir is jc's fixture corpus, relative to this package.
const corpusDir = "../../shared/corpus/jc"

// corpusRoot returns the corpus folder, skipping the test when it is
// missing locally; in CI (CI=true) a missing corpus is a failure.
func corpusRoot(t testing.TB) string {
	t.Helper()
	if st, err := os.Stat(corpusDir); err != nil || !st.IsDir() {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus folder %s missing (required in CI): %v", corpusDir, err)
		}
		t.Skipf("corpus folder %s missing: skipped outside CI", corpusDir)
	}
	return corpusDir
}

// fixtures lists the <name>.out files of one parser that have <name>.json.
func fixtures(t testing.TB, parser string) []string {
	root := corpusRoot(t)
	outs, err := filepath.Glob(filepath.Join(root, parser, "*", "*.out"))
	if err != nil {
		t.Fatal(err)
	}
	var res []string
	for _, o := range outs {
		if _, err := os.Stat(strings.TrimSuffix(o, ".out") + ".json"); err == nil {
			res = append(res, o)
		}
	}
	sort.Strings(res)
	if len(res) == 0 {
		t.Fatalf("no %s fixtures in %s", parser, root)
	}
	return res
}

// subset reports every way in which want (jc's JSON) is not contained in
// got (ours): each key of want present with an equal value, lists
// element by element in the same order. With lenientNum a jc string
// holding a number matches an equal number (jc leaves some streaming
// fields unconverted). With extraTail, got may have more list elements.
func subset(path string, want, got any, lenientNum, extraTail bool, diffs *[]string) {
	if len(*diffs) > 20 {
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: want object, got %T", path, got))
			return
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: missing (want %v)", path, k, w[k]))
				continue
			}
			subset(path+"."+k, w[k], gv, lenientNum, extraTail, diffs)
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: want list, got %T", path, got))
			return
		}
		if len(g) != len(w) && !(extraTail && len(g) > len(w)) {
			*diffs = append(*diffs, fmt.Sprintf("%s: want %d elements, got %d", path, len(w), len(g)))
		}
		for i := 0; i < len(w) && i < len(g); i++ {
			subset(fmt.Sprintf("%s[%d]", path, i), w[i], g[i], lenientNum, extraTail, diffs)
		}
	case float64:
		if gf, ok := got.(float64); !ok || gf != w {
			*diffs = append(*diffs, fmt.Sprintf("%s: want %v, got %v", path, w, got))
		}
	case string:
		if gs, ok := got.(string); ok && gs == w {
			return
		}
		if gf, ok := got.(float64); ok && lenientNum {
			if wf, err := strconv.ParseFloat(w, 64); err == nil && wf == gf {
				return
			}
		}
		*diffs = append(*diffs, fmt.Sprintf("%s: want %q, got %v", path, w, got))
	default: // nil, bool
		if got != want {
			*diffs = append(*diffs, fmt.Sprintf("%s: want %v, got %v", path, want, got))
		}
	}
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func readJSON(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// TestCorpus parses every ping, traceroute, tracepath and dig fixture and
// checks that jc's JSON is contained in ours.
func TestCorpus(t *testing.T) {
	pst, err := time.LoadLocation("PST8PDT")
	if err != nil {
		t.Fatal(err)
	}
	// dig's when_epoch is local time; the fixtures were made in PST8PDT.
	old := time.Local
	time.Local = pst
	defer func() { time.Local = old }()

	for _, tool := range []string{"ping", "traceroute", "tracepath", "dig"} {
		for _, out := range fixtures(t, tool) {
			name := strings.TrimPrefix(out, corpusDir+"/")
			t.Run(name, func(t *testing.T) {
				text, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				got, err := Parse(tool, string(text))
				if err != nil {
					t.Fatalf("parse error: %v", err)
				}
				want := readJSON(t, strings.TrimSuffix(out, ".out")+".json")
				var diffs []string
				subset("$", want, roundTrip(t, got), false, false, &diffs)
				if len(diffs) > 0 {
					t.Errorf("%d difference(s) from jc:\n  %s", len(diffs), strings.Join(diffs, "\n  "))
				}
			})
		}
	}
}

// TestCorpusPingStreaming feeds each ping fixture line by line to the
// streaming parser and compares with jc's *-streaming.json.
func TestCorpusPingStreaming(t *testing.T) {
	root := corpusRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "ping", "*", "*-streaming.json"))
	if len(files) == 0 {
		t.Fatal("no streaming fixtures")
	}
	for _, jf := range files {
		out := strings.TrimSuffix(jf, "-streaming.json") + ".out"
		name := strings.TrimPrefix(jf, corpusDir+"/")
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			s := NewPingStream()
			var events []any
			for _, line := range splitLines(string(text)) {
				ev, err := s.Line(line)
				if err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				if ev != nil {
					events = append(events, ev)
				}
			}
			if ev := s.Close(); ev != nil {
				events = append(events, ev)
			}
			want := readJSON(t, jf)
			var diffs []string
			subset("$", want, roundTrip(t, events), true, true, &diffs)
			if len(diffs) > 0 {
				t.Errorf("%d difference(s) from jc:\n  %s", len(diffs), strings.Join(diffs, "\n  "))
			}
		})
	}
}
