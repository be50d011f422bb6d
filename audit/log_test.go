package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixedClock returns a clock advancing one second per call from a fixed start.
func fixedClock() func() time.Time {
	t := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

// sampleLog writes n records to a new log and returns its path and lines.
func sampleLog(t *testing.T, n int) (string, [][]byte) { return sampleLogFor(t, n, "s1") }

// sampleLogFor is sampleLog with the records' session id.
func sampleLogFor(t *testing.T, n int, session string) (string, [][]byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	l, err := Open(path, Options{Now: fixedClock(), Sync: SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		r := Record{Session: session, Identity: "alice", Kind: KindRequest, ID: fmt.Sprint(i),
			Method: "tools/call", Tool: "network.yang.get", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"/if%d","n":%d.50}`, i, i))}
		if i%2 == 0 {
			r.Kind, r.Outcome, r.DurationMS, r.Arguments = KindResponse, OutcomeOK, float64(i)/3, nil
		}
		if _, err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

func writeLines(t *testing.T, path string, lines [][]byte) {
	t.Helper()
	var b []byte
	for _, l := range lines {
		b = append(b, l...)
		if !bytes.HasSuffix(l, []byte("\n")) {
			b = append(b, '\n')
		}
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyIntact(t *testing.T) {
	path, lines := sampleLog(t, 6)
	rep, err := Verify(path)
	if err != nil || rep.Records != 6 || rep.LastSeq != 6 || !rep.HeadChecked {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
	var last Record
	if err := json.Unmarshal(lines[5], &last); err != nil || last.Hash != rep.LastHash {
		t.Fatalf("last hash %s vs %s (%v)", last.Hash, rep.LastHash, err)
	}
	// Golden: the first record as written (canonical JSON, deterministic hash).
	golden := filepath.Join("testdata", "first-record.golden")
	if *update {
		os.WriteFile(golden, lines[0], 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil || !bytes.Equal(want, lines[0]) {
		t.Fatalf("first record\n got %s\nwant %s (%v)", lines[0], want, err)
	}
}

func TestVerifyTampering(t *testing.T) {
	_, foreign := sampleLogFor(t, 3, "s9") // another log: another chain
	foreignRec := foreign[2]
	tests := []struct {
		name   string
		mutate func(lines [][]byte) [][]byte
		head   bool // keep the head file
	}{
		{"edit a field of record 3", func(l [][]byte) [][]byte {
			l[2] = bytes.Replace(l[2], []byte(`"alice"`), []byte(`"mallory"`), 1)
			return l
		}, true},
		{"edit a number keeping its value", func(l [][]byte) [][]byte {
			l[0] = bytes.Replace(l[0], []byte(`1.50`), []byte(`1.5`), 1)
			return l
		}, true},
		{"delete record 3", func(l [][]byte) [][]byte { return append(l[:2:2], l[3:]...) }, true},
		{"delete the first record", func(l [][]byte) [][]byte { return l[1:] }, true},
		{"delete the last record", func(l [][]byte) [][]byte { return l[:5] }, true},
		{"delete the last two records and the head file", func(l [][]byte) [][]byte { return l[:4] }, false},
		{"insert a copy of record 2 after record 4", func(l [][]byte) [][]byte {
			return append(l[:4:4], append([][]byte{l[1]}, l[4:]...)...)
		}, true},
		{"insert a self-consistent foreign record", func(l [][]byte) [][]byte {
			return append(l[:2:2], append([][]byte{resealed(t, foreignRec, 3)}, l[2:]...)...)
		}, true},
		{"swap records 3 and 4", func(l [][]byte) [][]byte { l[2], l[3] = l[3], l[2]; return l }, true},
		{"empty line inserted", func(l [][]byte) [][]byte {
			return append(l[:1:1], append([][]byte{[]byte("\n")}, l[1:]...)...)
		}, true},
		{"garbage line", func(l [][]byte) [][]byte { l[4] = []byte("{not json\n"); return l }, true},
	}
	var report strings.Builder
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, lines := sampleLog(t, 6)
			writeLines(t, path, tt.mutate(lines))
			if !tt.head {
				os.Remove(path + HeadSuffix)
			}
			_, err := Verify(path)
			var te *TamperError
			if !tt.head && err == nil {
				fmt.Fprintf(&report, "%s: OK (undetectable without the head file)\n", tt.name)
				return
			}
			if !errors.As(err, &te) {
				t.Fatalf("Verify = %v, want a TamperError", err)
			}
			fmt.Fprintf(&report, "%s: %v\n", tt.name, err)
		})
	}
	golden := filepath.Join("testdata", "tamper.golden")
	if *update {
		os.WriteFile(golden, []byte(report.String()), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := report.String(); got != string(want) {
		t.Errorf("tamper report differs from %s:\n%s", golden, got)
	}
}

// resealed rewrites a record line with the given seq and a correct own hash
// but a prev that belongs to another chain.
func resealed(t *testing.T, line []byte, seq uint64) []byte {
	t.Helper()
	obj, err := decodeObject(line)
	if err != nil {
		t.Fatal(err)
	}
	obj["seq"] = json.Number(fmt.Sprint(seq))
	h, _ := canonicalHash(obj)
	obj["hash"] = h
	b, _ := canonicalJSON(obj)
	return append(b, '\n')
}

func TestConcurrentAppendAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", FileName)
	l, err := Open(path, Options{Sync: SyncInterval, SyncInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if _, err := l.Append(Record{Kind: KindRequest, Session: fmt.Sprint(g), Method: "tools/list"}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if l.Seq() != 400 {
		t.Fatalf("seq %d", l.Seq())
	}
	l.Close()
	if _, err := l.Append(Record{}); err == nil {
		t.Fatal("append after close")
	}
	// A crash left half a record: reopening drops it and continues the chain.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":401,"kind":"req`)
	f.Close()
	l2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := l2.Append(Record{Kind: KindResponse, Outcome: OutcomeOK})
	if err != nil || r.Seq != 401 {
		t.Fatalf("after reopen: %+v %v", r, err)
	}
	l2.Close()
	rep, err := Verify(path)
	if err != nil || rep.Records != 401 {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("log mode %v", st.Mode().Perm())
	}
}

func TestParseSyncPolicy(t *testing.T) {
	for in, want := range map[string]SyncPolicy{"": SyncEveryRecord, "always": SyncEveryRecord, "writes": SyncWrites, "interval": SyncInterval, "never": SyncNever} {
		if got, err := ParseSyncPolicy(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := ParseSyncPolicy("sometimes"); err == nil {
		t.Error("bad policy accepted")
	}
}

func TestAppendRejectsBadArguments(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), FileName), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Append(Record{Kind: KindRequest, Arguments: json.RawMessage(`{bad`)}); err == nil {
		t.Fatal("invalid JSON arguments accepted")
	}
	if r, err := l.Append(Record{Kind: KindRequest}); err != nil || r.Seq != 1 || r.Prev != Genesis {
		t.Fatalf("first good record after a rejected one: %+v %v", r, err)
	}
}

// BenchmarkAppend measures one record appended under each fsync policy.
func BenchmarkAppend(b *testing.B) {
	for _, pol := range []struct {
		name string
		p    SyncPolicy
	}{{"always", SyncEveryRecord}, {"writes", SyncWrites}, {"interval", SyncInterval}, {"never", SyncNever}} {
		b.Run(pol.name, func(b *testing.B) {
			l, err := Open(filepath.Join(b.TempDir(), FileName), Options{Sync: pol.p})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			r := Record{Session: "s1", Identity: "mtls:alice", Kind: KindRequest, Method: "tools/call",
				Tool: "network.yang.get", Arguments: json.RawMessage(`{"path":"/ietf-interfaces:interfaces"}`)}
			for b.Loop() {
				if _, err := l.Append(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestOpenRefusesTruncatedLog(t *testing.T) {
	path, lines := sampleLog(t, 4)
	writeLines(t, path, lines[:3])
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "log ends at record 3 but its head file records 4") {
		t.Fatalf("Open of a truncated log: %v", err)
	}
	// The evidence is still there for Verify.
	if _, err := Verify(path); err == nil {
		t.Fatal("Verify passed a truncated log")
	}
}

// TestSyncWrites: under SyncWrites a durable record (a change, an approval)
// is forced to disk with everything before it, while reads wait for the
// interval.
func TestSyncWrites(t *testing.T) {
	now := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	l, err := Open(filepath.Join(t.TempDir(), FileName), Options{Sync: SyncWrites, SyncInterval: time.Second, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	steps := []struct {
		durable   bool
		advance   time.Duration
		wantDirty bool
	}{
		{false, 0, true}, // a read: not synced yet
		{false, 0, true}, // another read
		{true, 0, false}, // a write: synced at once, with the reads before it
		{false, 500 * time.Millisecond, true},
		{false, 600 * time.Millisecond, false}, // the interval has passed
	}
	for i, st := range steps {
		now = now.Add(st.advance)
		if _, err := l.Append(Record{Kind: KindRequest, Method: "tools/call", Durable: st.durable}); err != nil {
			t.Fatal(err)
		}
		l.mu.Lock()
		dirty := l.dirty
		l.mu.Unlock()
		if dirty != st.wantDirty {
			t.Fatalf("step %d (durable=%v): dirty = %v, want %v", i, st.durable, dirty, st.wantDirty)
		}
	}
}

// TestHeadFollowsSyncs checks that under the writes policy the head file is
// written with each fsync, not with each record: a change brings it up to
// date at once, reads only at the next sync or at Close; a head behind the
// log (a crash before the sync) still verifies.
func TestHeadFollowsSyncs(t *testing.T) {
	now := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), FileName)
	l, err := Open(path, Options{Sync: SyncWrites, SyncInterval: time.Second, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	headSeq := func() uint64 {
		t.Helper()
		b, err := os.ReadFile(path + HeadSuffix)
		if err != nil {
			t.Fatal(err)
		}
		var h head
		if err := json.Unmarshal(bytes.TrimSpace(b), &h); err != nil && len(bytes.TrimSpace(b)) > 0 {
			t.Fatalf("head %q: %v", b, err)
		}
		return h.Seq
	}
	appendRec := func(durable bool) {
		t.Helper()
		if _, err := l.Append(Record{Kind: KindRequest, Method: "tools/call", Durable: durable}); err != nil {
			t.Fatal(err)
		}
	}
	appendRec(false)
	appendRec(false)
	if got := headSeq(); got != 0 {
		t.Errorf("head after two reads = %d, want 0 (written at the next sync)", got)
	}
	if _, err := Verify(path); err != nil {
		t.Errorf("a head behind the log must verify (a crash before the sync): %v", err)
	}
	appendRec(true)
	if got := headSeq(); got != 3 {
		t.Errorf("head after a change = %d, want 3", got)
	}
	appendRec(false)
	now = now.Add(2 * time.Second)
	appendRec(false)
	if got := headSeq(); got != 5 {
		t.Errorf("head after the interval = %d, want 5", got)
	}
	appendRec(false)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got := headSeq(); got != 6 {
		t.Errorf("head after Close = %d, want 6", got)
	}
	if _, err := Verify(path); err != nil {
		t.Fatal(err)
	}
}

// TestInsertMember checks the hash member is inserted where canonicalJSON
// would have written it, for objects around and inside which "hash" sorts.
func TestInsertMember(t *testing.T) {
	docs := []string{
		`{}`,
		`{"a":1}`,
		`{"z":1}`,
		`{"a":{"hash":"x","q":[1,{"z":"}"}]},"id":"#1","s":"a,b\"c"}`,
		`{"arguments":{"k":"v"},"kind":"request","prev":"00","seq":1}`,
		`{"h":[],"hasi":"{","hashz":true}`,
	}
	for _, d := range docs {
		obj, err := decodeObject([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		in, err := canonicalJSON(obj)
		if err != nil {
			t.Fatal(err)
		}
		obj["hash"] = "abc"
		want, err := canonicalJSON(obj)
		if err != nil {
			t.Fatal(err)
		}
		got, err := insertMember(in, "hash", "abc")
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if string(got) != string(want) {
			t.Errorf("insertMember(%s) = %s, want %s", d, got, want)
		}
	}
}
