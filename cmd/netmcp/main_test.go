package main

import (
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
			t.Errorf("help lacks %q: %s", c.name, all)
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
