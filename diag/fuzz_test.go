package diag

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// seedCorpus adds every fixture of a parser to the fuzz corpus.
func seedCorpus(f *testing.F, parser string) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, parser, "*", "*.out"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("")
	f.Add("PING \n---\n = \n")
}

// fuzzParse checks a parser never panics and its result always marshals.
func fuzzParse[T any](f *testing.F, parser string, parse func(string) (T, error)) {
	seedCorpus(f, parser)
	f.Fuzz(func(t *testing.T, s string) {
		res, err := parse(s)
		if err != nil {
			return
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("result does not marshal: %v", err)
		}
	})
}

func FuzzParsePing(f *testing.F) {
	fuzzParse(f, "ping", ParsePing)
}

func FuzzParseTraceroute(f *testing.F) { fuzzParse(f, "traceroute", ParseTraceroute) }

func FuzzParseTracepath(f *testing.F) { fuzzParse(f, "tracepath", ParseTracepath) }

func FuzzParseDig(f *testing.F) { fuzzParse(f, "dig", ParseDig) }

// FuzzPingStream checks the streaming parser never panics.
func FuzzPingStream(f *testing.F) {
	seedCorpus(f, "ping")
	f.Fuzz(func(t *testing.T, s string) {
		st := NewPingStream()
		for _, l := range splitLines(s) {
			_, _ = st.Line(l)
		}
		st.Close()
	})
}
