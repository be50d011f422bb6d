package controller_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
)

// auditMarks are the lengths of every device's audit log at one moment.
type auditMarks map[string]int

func (l *serverLab) marks() auditMarks {
	m := auditMarks{}
	for _, name := range l.lab.Routers() {
		m[name] = len(l.audit(name))
	}
	return m
}

// since returns the device's audit records written after the marks.
func (l *serverLab) since(m auditMarks, name string) []audit.Record {
	return l.audit(name)[m[name]:]
}

// quietFleet connects a fleet that sends nothing of its own accord (no
// keep-alive pings), so that every audit record of a run is the run's.
func quietFleet(t testing.TB, l *serverLab) *client.Fleet {
	t.Helper()
	f, err := client.New(l.inventory(), client.Options{KeepAlive: -1, CallTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	return f
}

// checkCorrelated checks that every audit record every device wrote
// since the marks (requests, responses, and the prompts/list a runbook
// starts with) carries the report's correlation id, and that the tool
// calls and runbook rounds they record are the report's calls.
func checkCorrelated(t *testing.T, l *serverLab, m auditMarks, rep *controller.Report) {
	t.Helper()
	want := map[string][]string{} // device -> tools called, in any order
	for _, c := range rep.Calls {
		want[c.Device] = append(want[c.Device], c.Tool)
	}
	touched := 0
	for _, name := range l.lab.Routers() {
		var got []string
		for _, r := range l.since(m, name) {
			if r.Correlation != rep.CorrelationID {
				t.Errorf("%s: audit record %d (%s %s %s) has correlation id %q, want the report's %q",
					name, r.Seq, r.Kind, r.Method, r.Tool, r.Correlation, rep.CorrelationID)
			}
			switch {
			case r.Kind != audit.KindRequest:
			case r.Method == "tools/call":
				got = append(got, r.Tool)
			case r.Method == "resources/read": // a log read (flap.go)
				got = append(got, r.Method)
			case r.Method == "prompts/get": // a runbook round (runbook.go)
				got = append(got, r.Method+" "+r.Tool)
			}
		}
		slices.Sort(got)
		slices.Sort(want[name])
		if !slices.Equal(got, want[name]) {
			t.Errorf("%s: audited tool calls %v, want the report's %v", name, got, want[name])
		}
		if len(got) > 0 {
			touched++
		}
	}
	if touched < 2 {
		t.Errorf("the intent touched %d devices; the check wants several", touched)
	}
}

// TestCorrelationInAuditLogs (the troubleshooting draft's 7.4): every call of an intent carries one id in
// _meta["netmcp/correlationId"], which each device's audit log records on
// the request and its response, so the intent can be followed across the
// devices; the next intent has its own id.
func TestCorrelationInAuditLogs(t *testing.T) {
	l := newServerLab(t, "icmp_acl_block r3:GigabitEthernet0/0/0")
	f := quietFleet(t, l)
	ctl := &controller.Controller{Fleet: f, Hosts: l.hosts()}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var ids []string
	for _, text := range []string{"what is wrong with the network?", "can r1 reach h3?"} {
		in, err := controller.ParseIntent(text)
		if err != nil {
			t.Fatal(err)
		}
		m := l.marks()
		rep, err := ctl.Ask(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if rep.CorrelationID == "" || len(rep.Calls) == 0 {
			t.Fatalf("%s: correlation id %q, %d calls", text, rep.CorrelationID, len(rep.Calls))
		}
		checkCorrelated(t, l, m, rep)
		ids = append(ids, rep.CorrelationID)
	}
	if ids[0] == ids[1] {
		t.Errorf("two intents share the correlation id %s", ids[0])
	}

	// An id the caller gives (a host's, a ticket's) is the intent's.
	m := l.marks()
	rep, err := ctl.Ask(client.WithCorrelationID(ctx, "ticket-4711"), controller.Intent{Kind: controller.KindSweep})
	if err != nil {
		t.Fatal(err)
	}
	if rep.CorrelationID != "ticket-4711" {
		t.Errorf("correlation id %q, want the caller's ticket-4711", rep.CorrelationID)
	}
	checkCorrelated(t, l, m, rep)
}
