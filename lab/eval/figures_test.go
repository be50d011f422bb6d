package eval_test

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/eval"
)

// TestFigures prints the controller's figures on a seeded suite of 100
// cases over networks of every size (NETMCP_EVAL_CASES, NETMCP_EVAL_SEED
// and NETMCP_EVAL_NETWORKS choose another). It asserts nothing about the
// scores: it is the measurement a change to the diagnosis is judged by.
func TestFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 100-case suite")
	}
	plan := eval.Plan{Cases: envInt(t, "NETMCP_EVAL_CASES", 100), Seed: int64(envInt(t, "NETMCP_EVAL_SEED", 1)),
		Networks: envInt(t, "NETMCP_EVAL_NETWORKS", 0)}
	s, err := plan.Suite()
	if err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	o := eval.Options{Timeout: 3 * time.Minute}
	if testing.Verbose() {
		o.Progress = &progress
	}
	rep, err := eval.Run(context.Background(), s, o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s\n%s", progress.String(), b.String())
	if len(rep.Cases) != len(s.Cases) {
		t.Errorf("%d results for %d cases", len(rep.Cases), len(s.Cases))
	}
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}
