package controller_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/lab/score"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// askEachPhase asks the sweep about a timed fault (link_flap) once the
// target's log holds two down/up cycles, in a down phase and in an up
// phase, and scores each: the cause is read from the history, so both
// must name it. The phase is the lab clock's; the sweep may straddle a
// change, so the test asks until it has one report of each (the report
// says which it saw), with a generous deadline and no assertion on speed.
func askEachPhase(t *testing.T, l *testLab, words string, truth score.Truth) []score.Row {
	t.Helper()
	f, err := topology.ParseFault(words)
	if err != nil {
		t.Fatal(err)
	}
	dev, ifn, _ := topology.SplitEnd(f.Target)
	deadline := time.Now().Add(2 * time.Minute)
	for linkDowns(l.syslog(t, dev), ifn) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%s's log shows no two cycles of %s", dev, words)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var rows []score.Row
	seen := map[string]bool{}
	for len(seen) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("asked in phases %v only", seen)
		}
		want := map[bool]string{true: "down", false: "up"}[netsim.FlapDown(f, l.now())]
		if seen[want] {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		rep := l.ask(t, "what is wrong with the network?")
		var text bytes.Buffer
		rep.WriteText(&text)
		phase := ""
		for _, c := range rep.RootCauses {
			if c.Name == "link_flap" {
				phase = map[bool]string{true: "down", false: "up"}[strings.Contains(c.Summary, "(down now)")]
			}
		}
		s := score.Of(nikaAnswer(rep), truth)
		if !s.Detection || s.Localization != 1 || s.RootCause != 1 || phase == "" {
			t.Fatalf("score %+v against %+v\n%s", s, truth, text.String())
		}
		if !seen[phase] {
			seen[phase] = true
			rows = append(rows, scoreRow(words+" ("+phase+" phase)", s, rep))
		}
	}
	return rows
}

// syslog reads a device's last 200 log lines.
func (l *testLab) syslog(t testing.TB, dev string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := l.fleet.Device(dev).ReadResource(ctx, controller.SyslogURI)
	if err != nil {
		t.Fatalf("read %s's log: %v", dev, err)
	}
	var b strings.Builder
	for _, c := range res.Contents {
		b.WriteString(c.Text)
	}
	return b.String()
}

// linkDowns counts an interface's link-layer changes to down in IOS XR
// log lines (the line protocol's are the same event again).
func linkDowns(log, ifn string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "%LINK-3-UPDOWN: Interface "+ifn+", changed state to down") {
			n++
		}
	}
	return n
}

// TestFlapHistoryAgesOut: a link that flapped and has been stable since
// is reported as flapping only while its changes are within the flap
// window: once the lab's clock (the devices' and the controller's) has
// moved past it, the same logs show a healthy network.
func TestFlapHistoryAgesOut(t *testing.T) {
	const words = "link_flap r2:GigabitEthernet0/0/0/1 period=2 down=1"
	l := newTestLab(t, words)
	l.ctl.Now = l.now // the controller reads the clock the devices log with
	deadline := time.Now().Add(2 * time.Minute)
	for linkDowns(l.syslog(t, "r2"), "GigabitEthernet0/0/0/1") < 2 {
		if time.Now().After(deadline) {
			t.Fatal("r2's log shows no two cycles of the flap")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := l.lab.ClearFault(words); err != nil {
		t.Fatal(err)
	}
	flapped := func(rep *controller.Report) bool {
		for _, c := range rep.RootCauses {
			if c.Name == "link_flap" {
				return true
			}
		}
		return false
	}
	// Within the window, the history still names the flap (the control:
	// without a window this is what the sweep always said).
	if rep := l.ask(t, "what is wrong with the network?"); !flapped(rep) {
		var text bytes.Buffer
		rep.WriteText(&text)
		t.Fatalf("right after the flap, no link_flap reported:\n%s", text.String())
	}
	l.advance(controller.DefaultFlapWindow + time.Minute)
	rep := l.ask(t, "what is wrong with the network?")
	if flapped(rep) || rep.IsAnomaly {
		var text bytes.Buffer
		rep.WriteText(&text)
		t.Fatalf("a flap older than the window is still reported:\n%s", text.String())
	}
}

// TestFlapFoundBeforeItsSecondCycle: a link asked about right after it
// started flapping, in its first down phase, has no history of coming
// back yet. The sweep watches it: it comes back up by itself, so it is
// named link_flap on both ends, not link_down (had the sweep read it after
// it came back, the log's bounce names it the same).
func TestFlapFoundBeforeItsSecondCycle(t *testing.T) {
	const words = "link_flap r2:GigabitEthernet0/0/0/1 period=10 down=5"
	l := newTestLab(t, words)
	l.ctl.Now = l.now
	rep := l.ask(t, "what is wrong with the network?")
	var text bytes.Buffer
	rep.WriteText(&text)
	truth := score.Truth{Devices: []string{"r2", "r3"}, Names: []string{"link_flap"}}
	if s := score.Of(nikaAnswer(rep), truth); !s.Detection || s.Localization != 1 || s.RootCause != 1 {
		t.Fatalf("score %+v against %+v\n%s", s, truth, text.String())
	}
}
