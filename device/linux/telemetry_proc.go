//go:build linux

package linux

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ProcMemory reads a process's resident memory (VmRSS of
// /proc/PID/status) and proportional share (Pss of smaps_rollup: shared
// pages divided among their users) in kB; 0 for a process that is gone.
func ProcMemory(pid int) (rssKB, pssKB int64) {
	rssKB = kbField(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:")
	pssKB = kbField(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:")
	return rssKB, pssKB
}

// procPSS is a process's proportional share in kB (Pss of smaps_rollup),
// its VmRSS where the kernel has no smaps_rollup (or 0 when it is gone):
// status is read only then, unlike ProcMemory.
func procPSS(pid int) int64 {
	if pss := kbField(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:"); pss > 0 {
		return pss
	}
	return kbField(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:")
}

// kbField reads "Key: N kB" from a /proc file (0 when absent).
func kbField(path, key string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			if v := strings.Fields(rest); len(v) > 0 {
				n, _ := strconv.ParseInt(v[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// NetnsPIDs lists the processes whose network namespace is the named one
// (their /proc/PID/ns/net has the inode of NetnsDir/NAME).
func NetnsPIDs(name string) ([]int, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(NetnsDir, name), &st); err != nil {
		return nil, fmt.Errorf("linux: namespace %s: %w", name, err)
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		var ps syscall.Stat_t
		if syscall.Stat(filepath.Join("/proc", e.Name(), "ns", "net"), &ps) != nil {
			continue // exited meanwhile, or a kernel thread we may not read
		}
		if ps.Ino == st.Ino && ps.Dev == st.Dev {
			out = append(out, pid)
		}
	}
	return out, nil
}

// procTicks reads a process's CPU time (utime+stime of /proc/PID/stat)
// in clock ticks; ok is false for a process that is gone.
func procTicks(pid int) (ticks uint64, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 { // utime and stime are fields 14 and 15 of the line
		return 0, false
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	s, err2 := strconv.ParseUint(f[12], 10, 64)
	return u + s, err1 == nil && err2 == nil
}

// hostTicks reads the "cpu" line of /proc/stat: all CPUs' ticks in total,
// and those idle (idle and iowait).
func hostTicks() (total, idle uint64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("linux: /proc/stat: unexpected first line %q", line)
	}
	for k, s := range f[1:] {
		if k >= 8 { // guest and guest_nice are already in user and nice
			break
		}
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("linux: /proc/stat: %q: %w", line, err)
		}
		total += v
		if k == 3 || k == 4 {
			idle += v
		}
	}
	return total, idle, nil
}

// hostMemory reads MemTotal and MemAvailable of /proc/meminfo in bytes.
func hostMemory() (total, avail uint64, err error) {
	t := kbField("/proc/meminfo", "MemTotal:")
	a := kbField("/proc/meminfo", "MemAvailable:")
	if t <= 0 {
		return 0, 0, fmt.Errorf("linux: /proc/meminfo: no MemTotal")
	}
	return uint64(t) << 10, uint64(a) << 10, nil
}
