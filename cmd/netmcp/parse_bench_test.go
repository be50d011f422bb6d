package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkParseVersusJC runs the whole process `netmcp parse ping < FILE`
// and `jc --ping < FILE` (Debian's jc) over every ping output of the jc
// corpus, in one run, and reports the mean wall time of each per file and
// their ratio (jc / netmcp). An iteration is one round: netmcp over every
// file, then jc over every file. It skips when jc is not installed.
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
	// Only outputs both parse (Debian's jc is older than the corpus): the
	// comparison is of work done, not of errors.
	var inputs []string
	for _, f := range files {
		_, errOurs := run(bin, []string{"parse", "ping"}, f)
		_, errJC := run(jc, []string{"--ping"}, f)
		if errOurs == nil && errJC == nil {
			inputs = append(inputs, f)
		}
	}
	if len(inputs) == 0 {
		b.Skip("jc parses none of the corpus ping outputs")
	}
	b.Logf("%d of %d ping outputs parsed by both", len(inputs), len(files))
	// Each round runs netmcp over every file back to back, then jc over the
	// same files, as a script that parses a directory would. (Alternating
	// the two programs file by file instead makes every netmcp run start
	// with caches that jc's 60 ms run has just emptied: that costs netmcp
	// about 0.8 ms a file, and is reported as "cold" below.)
	var ours, theirs, cold time.Duration
	n := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, f := range inputs {
			d, err := run(bin, []string{"parse", "ping"}, f)
			if err != nil {
				b.Fatalf("netmcp parse ping < %s: %v", f, err)
			}
			ours += d
		}
		for _, f := range inputs {
			d, err := run(jc, []string{"--ping"}, f)
			if err != nil {
				b.Fatalf("jc --ping < %s: %v", f, err)
			}
			theirs += d
		}
		n += len(inputs)
	}
	b.StopTimer()
	// One file each, alternately, for the cold figure.
	for i := 0; i < min(n, len(inputs)); i++ {
		d, _ := run(bin, []string{"parse", "ping"}, inputs[i])
		cold += d
		run(jc, []string{"--ping"}, inputs[i])
	}
	b.ReportMetric(float64(ours.Microseconds())/float64(n)/1000, "netmcp-ms/file")
	b.ReportMetric(float64(theirs.Microseconds())/float64(n)/1000, "jc-ms/file")
	b.ReportMetric(float64(theirs)/float64(ours), "jc/netmcp")
	b.ReportMetric(float64(cold.Microseconds())/float64(min(n, len(inputs)))/1000, "netmcp-cold-ms/file")
}
