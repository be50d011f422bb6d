package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkParseVersusJC runs the whole process `netmcp parse TOOL < FILE`
// and `jc --TOOL < FILE` (Debian's jc) over every output of the jc corpus
// for each tool, in one run, and reports the mean wall time of each per
// file and their ratio (jc / netmcp). An iteration is one round: netmcp
// over every file, then jc over every file. It skips when jc is not
// installed.
func BenchmarkParseVersusJC(b *testing.B) {
	jc, err := exec.LookPath("jc")
	if err != nil {
		b.Skip("jc is not installed (apt-get install jc)")
	}
	bin := netmcpBinary(b)
	for _, tool := range []string{"ping", "traceroute", "tracepath", "dig"} {
		b.Run(tool, func(b *testing.B) { benchVersusJC(b, bin, jc, tool) })
	}
}

func benchVersusJC(b *testing.B, bin, jc, tool string) {
	files, _ := filepath.Glob(filepath.Join("../../../shared/corpus/jc", tool, "*", "*.out"))
	if len(files) == 0 {
		b.Skipf("no %s outputs in ../shared/corpus/jc", tool)
	}
	// Both programs read the file as their standard input and write to
	// /dev/null: the child gets the descriptors themselves, so no copying
	// goroutine of this process is timed with either.
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	run := func(name string, args []string, file string) (time.Duration, error) {
		in, err := os.Open(file)
		if err != nil {
			return 0, err
		}
		defer in.Close()
		cmd := exec.Command(name, args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = in, devNull, devNull
		t0 := time.Now()
		err = cmd.Run()
		return time.Since(t0), err
	}
	ours, theirs := []string{"parse", tool}, []string{"--" + tool}
	// Only outputs both parse (Debian's jc is older than the corpus): the
	// comparison is of work done, not of errors.
	var inputs []string
	for _, f := range files {
		_, errOurs := run(bin, ours, f)
		_, errJC := run(jc, theirs, f)
		if errOurs == nil && errJC == nil {
			inputs = append(inputs, f)
		}
	}
	if len(inputs) == 0 {
		b.Skipf("jc parses none of the corpus %s outputs", tool)
	}
	b.Logf("%d of %d %s outputs parsed by both", len(inputs), len(files), tool)
	// Each round runs netmcp over every file back to back, then jc over the
	// same files, as a script that parses a directory would. (Alternating
	// the two programs file by file instead makes every netmcp run start
	// with caches that jc's 60 ms run has just emptied: that costs netmcp
	// about 0.8 ms a file, and is reported as "cold" below.)
	var oursT, theirsT, cold time.Duration
	n := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, f := range inputs {
			d, err := run(bin, ours, f)
			if err != nil {
				b.Fatalf("netmcp %v < %s: %v", ours, f, err)
			}
			oursT += d
		}
		for _, f := range inputs {
			d, err := run(jc, theirs, f)
			if err != nil {
				b.Fatalf("jc %v < %s: %v", theirs, f, err)
			}
			theirsT += d
		}
		n += len(inputs)
	}
	b.StopTimer()
	// One file each, alternately, for the cold figure.
	for _, f := range inputs {
		d, _ := run(bin, ours, f)
		cold += d
		run(jc, theirs, f)
	}
	perFile := func(d time.Duration, n int) float64 { return float64(d.Microseconds()) / float64(n) / 1000 }
	b.ReportMetric(perFile(oursT, n), "netmcp-ms/file")
	b.ReportMetric(perFile(theirsT, n), "jc-ms/file")
	b.ReportMetric(float64(theirsT)/float64(oursT), "jc/netmcp")
	b.ReportMetric(perFile(cold, len(inputs)), "netmcp-cold-ms/file")
}
