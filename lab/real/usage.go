//go:build linux

package real

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/device/linux"
)

// DaemonUsage is the memory of the lab's daemons of one kind.
type DaemonUsage struct {
	Kind  string // "zebra", "ospfd", "lldpd", ...
	Count int    // processes, children included (lldpd's privilege-separated child)
	// RSSKB is the resident memory summed over the processes (shared
	// pages counted once per process); PSSKB the proportional share
	// (shared pages divided among their users), which adds up.
	RSSKB, PSSKB int64
}

// Usage is the memory of every daemon of the lab.
type Usage struct {
	Kinds        []DaemonUsage // sorted by kind
	RSSKB, PSSKB int64
	Processes    int
}

// Usage reads the memory of the lab's daemons and their children from
// /proc (VmRSS of status, Pss of smaps_rollup).
func (l *Lab) Usage() (Usage, error) {
	l.mu.Lock()
	procs := slices.Clone(l.procs)
	l.mu.Unlock()
	children, err := childMap()
	if err != nil {
		return Usage{}, err
	}
	byKind := map[string]*DaemonUsage{}
	var u Usage
	for _, p := range procs {
		if !p.alive() {
			continue
		}
		_, kind, _ := strings.Cut(p.name, "/")
		k := byKind[kind]
		if k == nil {
			k = &DaemonUsage{Kind: kind}
			byKind[kind] = k
		}
		for _, pid := range descendants(p.cmd.Process.Pid, children) {
			rss, pss := linux.ProcMemory(pid)
			k.Count++
			k.RSSKB += rss
			k.PSSKB += pss
		}
	}
	for _, k := range byKind {
		u.Kinds = append(u.Kinds, *k)
		u.RSSKB += k.RSSKB
		u.PSSKB += k.PSSKB
		u.Processes += k.Count
	}
	slices.SortFunc(u.Kinds, func(a, b DaemonUsage) int { return strings.Compare(a.Kind, b.Kind) })
	return u, nil
}

// String is one line: the totals, then per kind.
func (u Usage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d processes, RSS %.1f MB, PSS %.1f MB (", u.Processes, float64(u.RSSKB)/1024, float64(u.PSSKB)/1024)
	for i, k := range u.Kinds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d: PSS %.1f MB", k.Kind, k.Count, float64(k.PSSKB)/1024)
	}
	b.WriteString(")")
	return b.String()
}

// childMap maps every process to its children, from /proc/*/stat.
func childMap() (map[int][]int, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return nil, err
	}
	out := map[int][]int{}
	for _, s := range stats {
		b, err := os.ReadFile(s)
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		pid, err1 := strconv.Atoi(filepath.Base(filepath.Dir(s)))
		if len(f) < 2 || err1 != nil {
			continue
		}
		ppid, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		out[ppid] = append(out[ppid], pid)
	}
	return out, nil
}

// descendants lists pid and every process below it.
func descendants(pid int, children map[int][]int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}
