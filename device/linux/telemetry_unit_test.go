//go:build linux

package linux

import (
	"strconv"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
)

func TestParseFRRLine(t *testing.T) {
	for _, c := range []struct {
		line               string
		ok                 bool
		sev                int
		facility, mnemonic string
		msg                string
	}{
		{"2026/11/27 10:05:14 OSPF: [AZ8M3-X1Y2Z] AdjChg: Nbr 10.0.0.2(default) on a0: Full -> Deleted (InterfaceDown)", true,
			5, "OSPF", "OSPF-5-ADJCHG", "AdjChg: Nbr 10.0.0.2(default) on a0: Full -> Deleted (InterfaceDown)"},
		{"2026/11/27 10:05:14 OSPF: informational: [AZ8M3-X1Y2Z] AdjChg: Nbr 10.0.0.2(default) on a0: Loading -> Full (LoadingDone)", true,
			6, "OSPF", "OSPF-6-ADJCHG", "AdjChg: Nbr 10.0.0.2(default) on a0: Loading -> Full (LoadingDone)"},
		{"2026/11/27 10:05:14.123 notifications: BGP: [M59KS-A3ZXZ] %ADJCHANGE: neighbor 198.51.100.2(r2) in vrf default Up", true,
			5, "BGP", "BGP-5-ADJCHG", "%ADJCHANGE: neighbor 198.51.100.2(r2) in vrf default Up"},
		{"2026/11/27 10:05:14 ZEBRA: [NNACN-54BDA][EC 4043309110] Disabling MPLS support (no kernel support)", true,
			3, "ZEBRA", "ZEBRA-3-LOG", "Disabling MPLS support (no kernel support)"},
		{"2026/11/27 10:05:14 ZEBRA: warnings: [T83RR-8SM5G] zebra 8.4.4 starting: vty@0", true,
			4, "ZEBRA", "ZEBRA-4-LOG", "zebra 8.4.4 starting: vty@0"},
		{"zebra: not a log line", false, 0, "", "", ""},
		{"", false, 0, "", "", ""},
	} {
		e, ok := parseFRRLine(c.line)
		if ok != c.ok {
			t.Errorf("%q: ok %v, want %v", c.line, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if e.Severity != c.sev || e.Facility != c.facility || e.Mnemonic != c.mnemonic || e.Message != c.msg || e.Text != c.line {
			t.Errorf("%q:\n got %d %s %s %q %q\nwant %d %s %s %q", c.line, e.Severity, e.Facility, e.Mnemonic, e.Message, e.Text, c.sev, c.facility, c.mnemonic, c.msg)
		}
		if want := time.Date(2026, 11, 27, 10, 5, 14, 0, time.Local); e.Time.Truncate(time.Second) != want {
			t.Errorf("%q: time %v, want %v", c.line, e.Time, want)
		}
	}
}

func TestLogFileArg(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"/usr/lib/frr/zebra", "-N", "r1", "--log", "file:/tmp/lab/frr/r1/zebra.log", "--log-level", "informational"}, "/tmp/lab/frr/r1/zebra.log"},
		{[]string{"/usr/lib/frr/ospfd", "--log=file:/run/frr/x/ospfd.log"}, "/run/frr/x/ospfd.log"},
		{[]string{"/usr/lib/frr/ospfd", "--log", "syslog"}, ""},
		{[]string{"/usr/lib/frr/ospfd", "--log", "file:relative.log"}, ""},
		{[]string{"/usr/lib/frr/ospfd", "--log"}, ""},
	} {
		if got := logFileArg(c.argv); got != c.want {
			t.Errorf("logFileArg(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}

// TestLogRing: the log keeps the last MaxLogEntries entries, oldest
// first, growing on demand.
func TestLogRing(t *testing.T) {
	tel := &telemetry{subs: map[int]func(device.Event){}}
	var got []string
	tel.subs[0] = func(e device.Event) {
		if e.Kind == device.EventSyslog {
			got = append(got, e.Log.Message)
		}
	}
	tel.next = 1
	for i := range 5 {
		tel.publish(device.LogEntry{Message: strconv.Itoa(i)})
	}
	if cap(tel.log) >= MaxLogEntries {
		t.Errorf("the log holds %d entries with capacity %d: it should grow on demand", len(tel.log), cap(tel.log))
	}
	if l := tel.last(3); len(l) != 3 || l[0].Message != "2" || l[2].Message != "4" {
		t.Errorf("last(3) = %v, want 2 3 4", l)
	}
	if l := tel.last(100); len(l) != 5 {
		t.Errorf("last(100) gives %d entries, want the 5 there are", len(l))
	}
	for i := 5; i < MaxLogEntries+7; i++ {
		tel.publish(device.LogEntry{Message: strconv.Itoa(i)})
	}
	if len(got) != MaxLogEntries+7 {
		t.Errorf("the subscriber saw %d entries, want %d", len(got), MaxLogEntries+7)
	}
	l := tel.last(MaxLogEntries + 50)
	if len(l) != MaxLogEntries || l[0].Message != "7" || l[len(l)-1].Message != strconv.Itoa(MaxLogEntries+6) {
		t.Errorf("full log: %d entries from %s to %s, want %d from 7 to %d", len(l), l[0].Message, l[len(l)-1].Message, MaxLogEntries, MaxLogEntries+6)
	}
	if l := tel.last(2); l[0].Message != strconv.Itoa(MaxLogEntries+5) || l[1].Message != strconv.Itoa(MaxLogEntries+6) {
		t.Errorf("last(2) of a full log = %s %s", l[0].Message, l[1].Message)
	}
}
