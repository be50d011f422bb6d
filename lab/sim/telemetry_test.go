package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
)

// TestTelemetryMoves checks that CPU and memory move with time and load,
// per slot, and that periodic events fire.
func TestTelemetryMoves(t *testing.T) {
	lab, clk := newTestLab(t)
	r1 := mustDevice(t, lab, "r1")
	ctx := context.Background()
	c0, _ := r1.CPU(ctx)
	clk.Advance(97 * time.Second)
	c1, _ := r1.CPU(ctx)
	if c0.Percent == c1.Percent {
		t.Errorf("CPU did not move over 97 s: %v", c0.Percent)
	}
	for i := 0; i < 5; i++ {
		ping(t, r1, "10.3.0.10", "", 1)
	}
	c2, _ := r1.CPU(ctx)
	if c2.Percent < c1.Percent+20 {
		t.Errorf("CPU %v after five pings, %v before: load not counted", c2.Percent, c1.Percent)
	}
	clk.Advance(3 * time.Minute)
	c3, _ := r1.CPU(ctx)
	if c3.Percent >= c2.Percent {
		t.Errorf("load did not decay: %v then %v", c2.Percent, c3.Percent)
	}
	lc, err := r1.SlotCPU("0/0/CPU0")
	if err != nil || lc.Slot != "0/0/CPU0" || lc.Percent == c3.Percent {
		t.Errorf("line card CPU = %+v, %v", lc, err)
	}
	if _, err := r1.SlotCPU("9/9"); codeOf(err) == 0 {
		t.Errorf("unknown slot: err = %v", err)
	}
	m, err := r1.Memory(ctx)
	if err != nil || m.Total != 8192<<20 || m.Used+m.Free != m.Total || m.Used == 0 {
		t.Errorf("memory = %+v, %v", m, err)
	}
	cr, err := r1.Crashinfo(ctx, "0/0/CPU0")
	if err != nil || len(cr) != 1 || cr[0].Process != "fib_mgr" || cr[0].Time.IsZero() {
		t.Errorf("crashinfo = %+v, %v", cr, err)
	} else if !strings.Contains(cr[0].Detail, "fib_mgr.by.SEGV.") {
		t.Errorf("crashinfo detail %q does not name the signal", cr[0].Detail)
	}
	if cr, err := r1.Crashinfo(ctx, "0/RP0"); err != nil || len(cr) != 0 {
		t.Errorf("crashinfo of a clean slot = %+v, %v", cr, err)
	}
	for _, slot := range []string{"", "9/9"} {
		if _, err := r1.Crashinfo(ctx, slot); codeOf(err) == 0 {
			t.Errorf("crashinfo of slot %q: err = %v, want an MCP-NET error", slot, err)
		}
	}

	kinds := map[device.EventKind]int{}
	got := make(chan device.Event, 1000)
	unsub := r1.Subscribe(func(e device.Event) { got <- e })
	deadline := time.After(3 * time.Second)
	for kinds[device.EventCPU] < 2 || kinds[device.EventMemory] < 2 {
		select {
		case e := <-got:
			kinds[e.Kind]++
		case <-deadline:
			t.Fatalf("events after 3 s: %v", kinds)
		}
	}
	unsub()
}

// TestSyslog checks the log buffer: commits and rollbacks in the dialect's style.
func TestSyslog(t *testing.T) {
	lab, _ := newTestLab(t)
	for _, tc := range []struct{ dev, line, commit, ifLine string }{
		{"r1", "interface LoopBack5", "%%01CFG/5/COMMIT", "%%01IFNET/4/LINK_STATE(l)"},
		{"r2", "interface Loopback5", "%MGBL-CONFIG-5-COMMIT: ", "%LINEPROTO-5-UPDOWN: Line protocol on Interface Loopback5, changed state to up"},
	} {
		d := mustDevice(t, lab, tc.dev)
		commitLines(t, d, tc.line)
		logs, err := d.Syslog(context.Background(), 10)
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, l := range logs {
			all = append(all, l.Text)
		}
		text := strings.Join(all, "\n")
		if !strings.Contains(text, tc.commit) || !strings.Contains(text, tc.ifLine) {
			t.Errorf("%s log lacks %q or %q:\n%s", tc.dev, tc.commit, tc.ifLine, text)
		}
		out, _ := d.Exec(context.Background(), map[string]string{"r1": "display logbuffer", "r2": "show logging"}[tc.dev])
		if !strings.Contains(out, logs[len(logs)-1].Text) {
			t.Errorf("%s CLI log lacks the newest entry", tc.dev)
		}
	}
	r := newSyslogRing(3)
	for i := 0; i < 5; i++ {
		r.add(device.LogEntry{Message: string(rune('a' + i))})
	}
	if l := r.last(0); len(l) != 3 || l[0].Message != "c" || l[2].Message != "e" {
		t.Errorf("ring = %+v", l)
	}
}

// TestSyslogRingGrows checks that the log buffer holds the newest entries
// in order at every fill level, and that it allocates as entries arrive,
// not its whole capacity up front.
func TestSyslogRingGrows(t *testing.T) {
	msgs := func(es []device.LogEntry) string {
		var b strings.Builder
		for _, e := range es {
			b.WriteString(e.Message)
		}
		return b.String()
	}
	for _, tc := range []struct {
		capacity, adds int
		last           int
		want           string
		dropped        int
	}{
		{capacity: 3, adds: 0, want: ""},
		{capacity: 3, adds: 2, want: "ab"},
		{capacity: 3, adds: 3, want: "abc"},
		{capacity: 3, adds: 5, want: "cde", dropped: 2},
		{capacity: 3, adds: 5, last: 2, want: "de", dropped: 2},
		{capacity: 20, adds: 17, want: "abcdefghijklmnopq"},
		{capacity: 20, adds: 26, last: 5, want: "vwxyz", dropped: 6},
		{capacity: 20, adds: 26, want: "ghijklmnopqrstuvwxyz", dropped: 6},
	} {
		r := newSyslogRing(tc.capacity)
		for i := 0; i < tc.adds; i++ {
			r.add(device.LogEntry{Message: string(rune('a' + i))})
		}
		count, dropped := r.stats()
		if got := msgs(r.last(tc.last)); got != tc.want || count != min(tc.adds, tc.capacity) || dropped != tc.dropped {
			t.Errorf("cap %d, %d adds, last(%d) = %q (count %d, dropped %d), want %q (dropped %d)",
				tc.capacity, tc.adds, tc.last, got, count, dropped, tc.want, tc.dropped)
		}
	}
	r := newSyslogRing(syslogCapacity)
	r.add(device.LogEntry{Message: "boot"})
	if c := cap(r.buf); c > 64 {
		t.Errorf("a ring of %d entries holding one allocated %d slots", syslogCapacity, c)
	}
}
