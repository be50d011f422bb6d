package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkParseVersusJC runs the whole process `netmcp parse ping FILE`
// and `jc --ping < FILE` (Debian's jc) alternately over every ping output
// of the jc corpus, in one run, and reports the mean wall time of each per
// file and their ratio (jc / netmcp). It skips when jc is not installed.
func BenchmarkParseVersusJC(b *testing.B) {
	jc, err := exec.LookPath("jc")
	if err != nil {
		b.Skip("jc is not installed (apt-get install jc)")
	}
	files, _ := filepath.Glob("../../../shared/corpus/jc/ping/*/*.out")
	if len(files) == 0 {
		b.Skip("no ping outputs in ../shared/corpus/jc")
	}
	bin := netmcpBinary(b)
	var inputs [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		// Only outputs both parse (Debian's jc is older than the corpus):
		// the comparison is of work done, not of errors.
		jcCmd := exec.Command(jc, "--ping")
		jcCmd.Stdin = bytes.NewReader(data)
		if exec.Command(bin, "parse", "ping", f).Run() == nil && jcCmd.Run() == nil {
			inputs = append(inputs, data)
		}
	}
	if len(inputs) == 0 {
		b.Skip("jc parses none of the corpus ping outputs")
	}
	b.Logf("%d of %d ping outputs parsed by both", len(inputs), len(files))
	run := func(name string, args []string, in []byte) time.Duration {
		cmd := exec.Command(name, args...)
		cmd.Stdin = bytes.NewReader(in)
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return time.Since(t0)
	}
	var ours, theirs time.Duration
	n := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in := inputs[i%len(inputs)]
		ours += run(bin, []string{"parse", "ping"}, in)
		theirs += run(jc, []string{"--ping"}, in)
		n++
	}
	b.StopTimer()
	b.ReportMetric(float64(ours.Microseconds())/float64(n)/1000, "netmcp-ms/file")
	b.ReportMetric(float64(theirs.Microseconds())/float64(n)/1000, "jc-ms/file")
	b.ReportMetric(float64(theirs)/float64(ours), "jc/netmcp")
}
