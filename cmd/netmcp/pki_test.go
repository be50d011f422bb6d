package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the root command with args and returns its output.
func runPKICLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runRoot(t, "", args...)
}

func TestPKICommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	if out, err := runPKICLI(t, "pki", "init", "--dir", dir); err != nil || !strings.Contains(out, "created in "+dir) {
		t.Fatalf("init: %q, %v", out, err)
	}
	if _, err := runPKICLI(t, "pki", "init", "--dir", dir); err == nil || !strings.Contains(err.Error(), "refusing to overwrite") {
		t.Fatalf("second init: %v", err)
	}
	out, err := runPKICLI(t, "pki", "issue", "r1", "--dir", dir, "--kind", "server", "--ttl", "2h")
	if err != nil || !strings.Contains(out, "valid for 2h0m0s") {
		t.Fatalf("issue: %q, %v", out, err)
	}
	st, err := os.Stat(filepath.Join(dir, "r1.key"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("r1.key: %v %v", st, err)
	}
	outDir := t.TempDir()
	if _, err := runPKICLI(t, "pki", "issue", "alice", "--dir", dir, "--kind", "client", "--out", outDir, "--ttl", "24h"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(outDir, "alice.pem")); err != nil {
		t.Fatal(err)
	}
	if _, err := runPKICLI(t, "pki", "issue", "x", "--dir", dir, "--kind", "router"); err == nil {
		t.Fatal("bad kind accepted")
	}
}
