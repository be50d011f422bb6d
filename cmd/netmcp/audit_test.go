package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/audit"
)

func TestAuditVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	l, err := audit.Open(audit.PathIn(dir), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := l.Append(audit.Record{Kind: audit.KindRequest, Method: "tools/list", Identity: "alice"}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	run := func(args ...string) (string, error) { return runRoot(t, "", args...) }
	out, err := run("audit", "verify", "--state-dir", dir)
	if err != nil || !strings.HasPrefix(out, "OK ") || !strings.Contains(out, "3 records") {
		t.Fatalf("intact: %q %v", out, err)
	}
	b, _ := os.ReadFile(audit.PathIn(dir))
	tampered := filepath.Join(dir, "copy.jsonl")
	os.WriteFile(tampered, bytes.Replace(b, []byte(`"alice"`), []byte(`"eve"`), 2), 0o600)
	out, err = run("audit", "verify", tampered)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(out, "FAIL") || !strings.Contains(out, "line 1: record 1 was edited") {
		t.Fatalf("tampered: %q %v", out, err)
	}
	if _, err := run("audit", "verify", filepath.Join(dir, "missing.jsonl")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := run("audit", "verify", "--state-dir", dir, tampered); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Fatalf("both forms: %v", err)
	}
	if _, err := run("audit", "verify"); err == nil || !strings.Contains(err.Error(), "--device URL") {
		t.Fatalf("no log named: %v", err)
	}
	// --device finds the log in the directory netmcp serve uses by default.
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	served, err := defaultStateDir("sim://r1", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(served, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(audit.PathIn(served), b, 0o600)
	os.WriteFile(audit.PathIn(served)+audit.HeadSuffix, mustRead(t, audit.PathIn(dir)+audit.HeadSuffix), 0o600)
	out, err = run("audit", "verify", "--device", "sim://r1")
	if err != nil || !strings.HasPrefix(out, "OK "+audit.PathIn(served)) {
		t.Fatalf("--device: %q %v", out, err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
