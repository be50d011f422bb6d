package diag

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hand scanners of the parsers (the *_scan.go files) are checked
// against the expressions they replaced, which their _test.go files keep
// as the specification. These two helpers run such a check over the jc
// corpus and under the fuzzer.

// forEachCorpusLine calls check with every line of every fixture of
// parser in the jc corpus.
func forEachCorpusLine(t *testing.T, parser string, check func(*testing.T, string)) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(corpusRoot(t), parser, "*", "*.out"))
	if len(files) == 0 {
		t.Fatalf("no %s fixtures", parser)
	}
	lines := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			check(t, line)
			lines++
		}
	}
	t.Logf("%d lines of %d files agree", lines, len(files))
}

// fuzzLines fuzzes check with each line of an input and with the whole
// input (newlines inside), seeded from parser's fixtures and seeds.
func fuzzLines(f *testing.F, parser string, check func(*testing.T, string), seeds ...string) {
	seedCorpus(f, parser)
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, line := range strings.Split(s, "\n") {
			check(t, line)
		}
		check(t, s)
	})
}
