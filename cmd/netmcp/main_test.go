package main

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/internal/lazyre"
)

func TestRootCommandBuildsWhatItRuns(t *testing.T) {
	names := func(args ...string) []string {
		var out []string
		for _, c := range newRootCmd(args).Commands() {
			out = append(out, c.Name())
		}
		return out
	}
	if got := names("parse", "ping", "f.txt"); len(got) != 1 || got[0] != "parse" {
		t.Errorf("for parse, built %v; want only parse", got)
	}
	all := strings.Join(names("--help"), " ")
	for _, c := range commands {
		if !strings.Contains(all, c.name) {
			t.Errorf("the root lacks %q: %s", c.name, all)
		}
	}
	if got := names("no-such-command"); len(got) < len(commands) {
		t.Errorf("an unknown name built %v; want every command, for the error's suggestions", got)
	}
	// Every command's name is the name it is registered under.
	for _, c := range commands {
		if got := c.build().Name(); got != c.name {
			t.Errorf("command registered as %q is named %q", c.name, got)
		}
	}
	out, err := runRoot(t, "", "--help")
	if err != nil || !strings.Contains(out, "serve") || !strings.Contains(out, "parse") {
		t.Errorf("netmcp --help: %v\n%s", err, out)
	}
	// The old spellings work but help lists only the nouns.
	for _, old := range []string{"ask", "report"} {
		if regexp.MustCompile(`(?m)^  ` + old + ` `).MatchString(out) {
			t.Errorf("netmcp --help lists the old spelling %q:\n%s", old, out)
		}
	}
}

// TestAliases: every old spelling runs what its noun-first spelling runs
// (the same error for the same bad input, the same command), hidden from
// help; `netmcp agent` with the flags of `agent run` still runs the agent,
// and without flags prints its help.
func TestAliases(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.pem")
	tests := []struct {
		old, now []string
		want     string // in both errors
		hidden   bool   // old is a hidden command (not the agent's own flags)
	}{
		{[]string{"ask", "--reports", dir, "--show", "last"}, []string{"controller", "ask", "--reports", dir, "--show", "last"}, "no report", true},
		{[]string{"ask", "--lab", "--inventory", "x.yaml", "what is wrong?"}, []string{"controller", "ask", "--lab", "--inventory", "x.yaml", "what is wrong?"}, "exclusive", true},
		{[]string{"report", "verify", "--ca", missing, "r.json"}, []string{"agent", "report", "verify", "--ca", missing, "r.json"}, "missing.pem", true},
		{[]string{"agent", "lab", "--topology", filepath.Join(dir, "none.yaml")}, []string{"lab", "agents", "--topology", filepath.Join(dir, "none.yaml")}, "none.yaml", true},
		{[]string{"agent", "--device", "sim://r1", "--cert", missing, "--key", missing, "--ca", missing},
			[]string{"agent", "run", "--device", "sim://r1", "--cert", missing, "--key", missing, "--ca", missing}, "missing.pem", false},
		{[]string{"agent", "--device", "sim://r1"}, []string{"agent", "run", "--device", "sim://r1"}, `required flag(s) "ca", "cert", "key" not set`, false},
	}
	for _, tc := range tests {
		_, oldErr := runRoot(t, "", tc.old...)
		_, nowErr := runRoot(t, "", tc.now...)
		if oldErr == nil || nowErr == nil || oldErr.Error() != nowErr.Error() || !strings.Contains(nowErr.Error(), tc.want) {
			t.Errorf("%v: %v\n%v: %v\nwant the same error, with %q", tc.old, oldErr, tc.now, nowErr, tc.want)
		}
		var oe, ne *exitError
		if errors.As(oldErr, &oe) != errors.As(nowErr, &ne) || (oe != nil && oe.code != ne.code) {
			t.Errorf("%v and %v exit differently: %v, %v", tc.old, tc.now, oldErr, nowErr)
		}
		cmd, _, err := newRootCmd(tc.old).Find(tc.old)
		if err != nil {
			t.Fatal(err)
		}
		hidden := false
		for c := cmd; c != nil; c = c.Parent() {
			hidden = hidden || c.Hidden
		}
		if hidden != tc.hidden {
			t.Errorf("%v: runs %q, hidden %v; want hidden %v", tc.old, cmd.CommandPath(), hidden, tc.hidden)
		}
	}
	out, err := runRoot(t, "", "agent")
	if err != nil || !strings.Contains(out, "run ") || !strings.Contains(out, "report ") || strings.Contains(out, "--cert") {
		t.Errorf("netmcp agent without flags: %v\n%s", err, out)
	}
	out, err = runRoot(t, "", "lab", "--help")
	if err != nil || !strings.Contains(out, "agents ") {
		t.Errorf("netmcp lab --help lacks agents: %v\n%s", err, out)
	}
	out, err = runRoot(t, "", "controller", "--help")
	if err != nil || !strings.Contains(out, "ask ") || !strings.Contains(out, "serve ") {
		t.Errorf("netmcp controller --help: %v\n%s", err, out)
	}
}

// TestRegexpsCompile compiles every lazily compiled expression linked into
// netmcp (server, lab/sim, yang, diag, this package): before they were
// lazy, a bad one panicked at start-up of every test; now it would panic
// only on the first input that reaches it.
func TestRegexpsCompile(t *testing.T) {
	n, err := lazyre.CompileAll()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no expression registered: the lazy expressions go unchecked")
	}
}
