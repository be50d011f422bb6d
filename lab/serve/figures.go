package serve

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// labFigures are the measured costs of a running lab.
type labFigures struct {
	routers int
	ready   time.Duration
	cpu     time.Duration // CPU time spent getting ready (0: unknown)
	rss     uint64        // resident set of the process (0: unknown)
	heap    uint64        // live Go heap after a collection
}

// String is the line of Options.Report.
func (f labFigures) String() string {
	n := float64(max(f.routers, 1))
	const mb = 1 << 20
	rss := "RSS unknown"
	if f.rss > 0 {
		rss = fmt.Sprintf("RSS %.1f MB (%.3f MB per router)", float64(f.rss)/mb, float64(f.rss)/mb/n)
	}
	cpu := ""
	if f.cpu > 0 {
		cpu = fmt.Sprintf(" (CPU %.2f s)", f.cpu.Seconds())
	}
	return fmt.Sprintf("lab: %d routers ready in %.2f s%s; %s; Go heap %.1f MB (%.3f MB per router)",
		f.routers, f.ready.Seconds(), cpu, rss, float64(f.heap)/mb, float64(f.heap)/mb/n)
}

// measureLab collects the figures of a lab of n routers that took ready
// (and cpu of CPU time) to start: the process's resident set and the live
// heap after a collection.
func measureLab(n int, ready, cpu time.Duration) labFigures {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return labFigures{routers: n, ready: ready, cpu: cpu, rss: processRSS(), heap: ms.HeapAlloc}
}

// processRSS reads this process's resident set size from /proc (Linux);
// 0 where that is not available.
func processRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseUint(f[0], 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}
