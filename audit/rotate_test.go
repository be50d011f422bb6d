package audit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The log rotates by size without breaking the chain: each segment starts
// from the previous head, Verify checks them as one chain, a restart
// continues it, and tampering with a segment is found.
func TestRotationKeepsTheChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	opts := Options{Now: fixedClock(), Sync: SyncNever, MaxSize: 2048}
	l, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	appendN := func(l *Log, n int) {
		for i := 0; i < n; i++ {
			if _, err := l.Append(Record{Kind: KindRequest, Method: "tools/call", Tool: "network.yang.get", Session: strings.Repeat("s", 100)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendN(l, 40)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	segs, err := Segments(path)
	if err != nil || len(segs) < 2 {
		t.Fatalf("segments %v, %v: want several", segs, err)
	}
	for _, f := range append(segs, path) {
		if st, err := os.Stat(f); err != nil || st.Size() > opts.MaxSize {
			t.Fatalf("%s: %v, size over %d", f, err, opts.MaxSize)
		}
	}
	// A restart continues the chain, also right after a rotation.
	l, err = Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	appendN(l, 15)
	l.Close()
	rep, err := Verify(path)
	if err != nil || rep.Records != 55 || rep.FirstSeq != 1 || rep.Segments < 2 {
		t.Fatalf("Verify = %+v, %v; want 55 records from 1 across segments", rep, err)
	}

	// A segment deleted from the middle, or edited, is found.
	segs, _ = Segments(path)
	b, _ := os.ReadFile(segs[1])
	if err := os.Remove(segs[1]); err != nil {
		t.Fatal(err)
	}
	var te *TamperError
	if _, err := Verify(path); !errors.As(err, &te) || !strings.Contains(te.Reason, "deleted") || te.File != segs[2] {
		t.Fatalf("deleted segment: %v", err)
	}
	if err := os.WriteFile(segs[1], []byte(strings.Replace(string(b), "tools/call", "tools/cull", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(path); !errors.As(err, &te) || !strings.Contains(te.Reason, "edited") || te.File != segs[1] {
		t.Fatalf("edited segment: %v", err)
	}
}

// Retention keeps the newest MaxSegments segments; the chain then starts
// at the oldest one left.
func TestRotationRetention(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	l, err := Open(path, Options{Now: fixedClock(), Sync: SyncNever, MaxSize: 1024, MaxSegments: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 60; i++ {
		if _, err := l.Append(Record{Kind: KindRequest, Method: "ping", Session: strings.Repeat("x", 80)}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	if segs, _ := Segments(path); len(segs) != 2 {
		t.Fatalf("segments kept: %v, want 2", segs)
	}
	rep, err := Verify(path)
	if err != nil || rep.FirstSeq <= 1 || rep.LastSeq != 60 {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
}
