package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFile reads back what a Log wrote, and names the line of a
// record that is not JSON.
func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"network.yang.get", "network.commit"} {
		if _, err := l.Append(Record{Kind: KindRequest, Tool: tool}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadFile(path)
	if err != nil || len(recs) != 2 || recs[0].Tool != "network.yang.get" || recs[1].Tool != "network.commit" || recs[1].Seq != recs[0].Seq+1 {
		t.Fatalf("ReadFile = %+v, %v", recs, err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n")
	f.Close()
	if recs, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "line 3") || len(recs) != 2 {
		t.Fatalf("a broken line: %d records, %v", len(recs), err)
	}
}
