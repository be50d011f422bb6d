//go:build linux

package linux

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/netmcp/netmcp/device"
)

// FRRLogPoll is how often the driver reads FRR's log files for new lines.
var FRRLogPoll = time.Second

// frrLogBacklog is how much of a log file found the first time is read:
// its last lines are the history (adjacencies formed at start).
const frrLogBacklog = 64 << 10

// frrLogRead bounds one read of a log file.
const frrLogRead = 1 << 20

// tailed is a log file being followed.
type tailed struct {
	ino uint64
	off int64
}

// tailFRR follows the log files of FRR's daemons of the namespace (or the
// host) until the telemetry stops, logging each new line.
func (t *telemetry) tailFRR() {
	files := map[string]*tailed{}
	tk := time.NewTicker(FRRLogPoll)
	defer tk.Stop()
	for {
		for _, p := range t.frrLogFiles() {
			t.readLog(files, p)
		}
		select {
		case <-t.done:
			return
		case <-tk.C:
		}
	}
}

// frrLogFiles finds the log files of FRR's daemons: the daemons' PID
// files are in FRRRunDir/NETNS (FRRRunDir for the host), and each running
// daemon's command line names its file ("--log file:PATH"); a DAEMON.log
// beside the PID files is taken too.
func (t *telemetry) frrLogFiles() []string {
	dir := FRRRunDir
	if t.netns != "" {
		dir = filepath.Join(dir, t.netns)
	}
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	pidFiles, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	for _, pf := range pidFiles {
		b, err := os.ReadFile(pf)
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			continue
		}
		cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		add(logFileArg(strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")))
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, l := range logs {
		add(l)
	}
	return out
}

// logFileArg returns the file of an FRR daemon's "--log file:PATH" (or
// "--log=file:PATH") argument, "" without one.
func logFileArg(argv []string) string {
	for i, a := range argv {
		v, ok := strings.CutPrefix(a, "--log=")
		if !ok && a == "--log" && i+1 < len(argv) {
			v, ok = argv[i+1], true
		}
		if p, isFile := strings.CutPrefix(v, "file:"); ok && isFile && filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
	}
	return ""
}

// readLog reads the complete lines added to path since the last read
// (from its last frrLogBacklog bytes the first time, from its start when
// it was replaced or truncated) and logs them.
func (t *telemetry) readLog(files map[string]*tailed, path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = st.Ino
	}
	tf := files[path]
	skipPartial := false
	switch {
	case tf == nil:
		tf = &tailed{ino: ino, off: max(0, fi.Size()-frrLogBacklog)}
		skipPartial = tf.off > 0
		files[path] = tf
	case tf.ino != ino || fi.Size() < tf.off:
		tf.ino, tf.off = ino, 0
	}
	if fi.Size() == tf.off {
		return
	}
	buf := make([]byte, min(fi.Size()-tf.off, frrLogRead))
	n, err := f.ReadAt(buf, tf.off)
	if err != nil && err != io.EOF {
		return
	}
	buf = buf[:n]
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		if len(buf) == frrLogRead {
			tf.off += int64(len(buf)) // a line longer than a read: skip it
		}
		return
	}
	tf.off += int64(end + 1)
	lines := strings.Split(string(buf[:end]), "\n")
	if skipPartial {
		lines = lines[1:] // the backlog started inside a line
	}
	for _, l := range lines {
		if e, ok := parseFRRLine(l); ok {
			t.publish(e)
		}
	}
}

// frrLineRe splits an FRR log file's line: its local time, then the rest
// ("OSPF: [XXXXX-XXXXX] AdjChg: ...", with "log record-priority" a level
// word before the message).
var frrLineRe = regexp.MustCompile(`^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)?) (.*)$`)

var (
	frrProtoRe = regexp.MustCompile(`^([A-Z][A-Z0-9_-]*): `)
	frrIDRe    = regexp.MustCompile(`^(?:\[[A-Z0-9]{5}-[A-Z0-9]{5}\])?(\[EC \d+\])?\s*`)
)

// frrLevels are FRR's level words ("log record-priority"), by RFC 5424
// severity.
var frrLevels = map[string]int{"emergencies": 0, "alerts": 1, "critical": 2, "errors": 3,
	"warnings": 4, "notifications": 5, "informational": 6, "debugging": 7}

// parseFRRLine turns one line of an FRR log file into a log entry: the
// facility is the daemon's protocol (OSPF, BGP, ZEBRA), the severity FRR's
// level word where it records it, else 3 for a line with an error code
// ("[EC n]"), 5 for an adjacency change and 6 otherwise; the mnemonic is
// FACILITY-SEVERITY-ADJCHG for an adjacency change, FACILITY-SEVERITY-LOG
// otherwise. Text is the line as FRR wrote it.
func parseFRRLine(line string) (device.LogEntry, bool) {
	m := frrLineRe.FindStringSubmatch(strings.TrimRight(line, "\r"))
	if m == nil {
		return device.LogEntry{}, false
	}
	ts, err := time.ParseInLocation("2006/01/02 15:04:05", m[1], time.Local)
	if err != nil {
		return device.LogEntry{}, false
	}
	rest := m[2]
	facility, sev := "FRR", -1
	for range 2 { // "PROTO: level: " or "level: PROTO: "
		if p := frrProtoRe.FindStringSubmatch(rest); p != nil && facility == "FRR" {
			facility, rest = p[1], rest[len(p[0]):]
			continue
		}
		if w, after, ok := strings.Cut(rest, ": "); ok && sev < 0 {
			if s, known := frrLevels[w]; known {
				sev, rest = s, after
			}
		}
	}
	id := frrIDRe.FindStringSubmatch(rest)
	msg := strings.TrimSpace(rest[len(id[0]):])
	adj := strings.HasPrefix(msg, "AdjChg:") || strings.Contains(msg, "ADJCHANGE")
	if sev < 0 {
		switch {
		case id[1] != "":
			sev = 3
		case adj:
			sev = 5
		default:
			sev = 6
		}
	}
	name := "LOG"
	if adj {
		name = "ADJCHG"
	}
	return device.LogEntry{Time: ts, Severity: sev, Facility: facility,
		Mnemonic: fmt.Sprintf("%s-%d-%s", facility, sev, name), Message: msg, Text: line}, true
}
