package diag

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

// TestCommandEnvironment checks the fixed environment: PATH and LC_ALL=C
// only, nothing inherited.
func TestCommandEnvironment(t *testing.T) {
	if _, err := exec.LookPath("env"); err != nil {
		t.Skip("needs env (coreutils)")
	}
	t.Setenv("NETMCP_SECRET_TEST", "leak")
	out, err := Command(context.Background(), []string{"env"}).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(out))
	if len(got) != 2 || !strings.HasPrefix(got[0], "PATH=") || got[1] != "LC_ALL=C" {
		t.Fatalf("environment %q, want PATH and LC_ALL=C only", got)
	}
}
