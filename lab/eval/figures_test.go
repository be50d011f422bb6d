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

// BenchmarkSuite prints the controller's figures on a seeded suite of 100
// cases over networks of every size (NETMCP_EVAL_CASES, NETMCP_EVAL_SEED
// and NETMCP_EVAL_NETWORKS choose another), and reports NIKA's three
// measures as metrics. It is the measurement a change to the diagnosis is
// judged by, run with `go test -run '^$' -bench Suite -benchtime 1x
// ./lab/eval`; it asserts nothing about the scores.
func BenchmarkSuite(b *testing.B) {
	plan := eval.Plan{Cases: envInt(b, "NETMCP_EVAL_CASES", 100), Seed: int64(envInt(b, "NETMCP_EVAL_SEED", 1)),
		Networks: envInt(b, "NETMCP_EVAL_NETWORKS", 0)}
	s, err := plan.Suite()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rep, err := eval.Run(context.Background(), s, eval.Options{Timeout: 3 * time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Cases) != len(s.Cases) {
			b.Fatalf("%d results for %d cases", len(rep.Cases), len(s.Cases))
		}
		var text bytes.Buffer
		if err := rep.WriteText(&text); err != nil {
			b.Fatal(err)
		}
		b.Logf("\n%s", text.String())
		b.ReportMetric(rep.Overall.Detection, "detection")
		b.ReportMetric(rep.Overall.Localization, "localization-f1")
		b.ReportMetric(rep.Overall.RootCause, "root-cause-f1")
	}
}

func envInt(tb testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return n
}
