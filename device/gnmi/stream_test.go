package gnmi_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi"
	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// operPath is the oper-status leaf of ifName as the driver names it.
const operPath = "/openconfig-interfaces:interfaces/interface[name='" + ifName + "']/state/oper-status"

// recorder collects a Watch's updates.
type recorder struct {
	mu      sync.Mutex
	updates []gnmi.Update
	synced  chan struct{}
	once    sync.Once
}

func newRecorder() *recorder { return &recorder{synced: make(chan struct{})} }

func (r *recorder) fn(b gnmi.Batch) {
	if b.Sync {
		r.once.Do(func() { close(r.synced) })
	}
	r.mu.Lock()
	r.updates = append(r.updates, b.Updates...)
	r.mu.Unlock()
}

// reset forgets the updates seen so far.
func (r *recorder) reset() {
	r.mu.Lock()
	r.updates = nil
	r.mu.Unlock()
}

// waitValue waits until an update sets path to value and reports when.
func (r *recorder) waitValue(path string, value any, within time.Duration) (time.Duration, bool) {
	start := time.Now()
	seen := 0
	for first := true; first || time.Since(start) < within; first = false {
		r.mu.Lock()
		us := r.updates[seen:]
		seen = len(r.updates)
		r.mu.Unlock()
		for _, u := range us {
			if u.Path == path && u.Value == value && !u.Deleted {
				return time.Since(start), true
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start), false
}

func linkDown() topology.Fault {
	return topology.Fault{Name: "link_down", Target: router + ":" + ifName}
}

// TestSubscriptionSurvivesRestart: an ON_CHANGE subscription sees a link
// going down within 1 s, keeps going when the server restarts, and
// delivers the change made while the server was down.
func TestSubscriptionSurvivesRestart(t *testing.T) {
	l := startLab(t, gnmiserver.Options{})
	d := openURL(t, l.URL())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := newRecorder()
	done := make(chan error, 1)
	go func() {
		done <- d.Watch(ctx, gnmi.Subscription{Mode: gnmi.ModeOnChange, Reconnect: true,
			Paths: []string{"/openconfig-interfaces:interfaces/interface/state/oper-status"}}, rec.fn)
	}()
	select {
	case <-rec.synced:
	case err := <-done:
		t.Fatalf("Watch ended: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no sync_response")
	}
	if _, ok := rec.waitValue(operPath, "UP", 0); !ok {
		t.Fatalf("the initial leaves have no %s = UP: %+v", operPath, rec.updates)
	}
	rec.reset()
	f, err := l.lab.Inject(linkDown())
	if err != nil {
		t.Fatal(err)
	}
	took, ok := rec.waitValue(operPath, "DOWN", time.Second)
	if !ok {
		t.Fatalf("no update to DOWN within 1 s of link_down")
	}
	t.Logf("link_down reached the subscriber in %s", took)

	l.Stop()
	if _, err := l.lab.ClearFault(f.ID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	rec.reset()
	l.Restart(0)
	if took, ok := rec.waitValue(operPath, "UP", 10*time.Second); !ok {
		t.Fatal("after the restart the subscription did not report the link up again")
	} else {
		t.Logf("the change made while the server was down arrived %s after the restart", took)
	}
	rec.reset()
	if err := l.lab.InjectFault(linkDown()); err != nil {
		t.Fatal(err)
	}
	if _, ok := rec.waitValue(operPath, "DOWN", time.Second); !ok {
		t.Fatal("after the restart, no update to DOWN within 1 s of link_down")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Watch after cancel: %v", err)
	}
}

// TestTelemetryEvents: the driver's Subscribe reports a link going down as
// an interface event and a log line in IOS words, and the BGP session
// over it dropping as another.
func TestTelemetryEvents(t *testing.T) {
	l := startLab(t, gnmiserver.Options{})
	d := openURL(t, l.URL())
	events := make(chan device.Event, 100)
	unsub := d.Subscribe(func(e device.Event) { events <- e })
	defer unsub()
	// Until the event stream has its initial leaves, the link going down
	// would be taken for the initial state and not reported.
	if err := d.WaitEvents(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := l.lab.InjectFault(linkDown()); err != nil {
		t.Fatal(err)
	}
	var sawIf, sawLog bool
	for !(sawIf && sawLog) {
		select {
		case e := <-events:
			sawIf = sawIf || (e.Kind == device.EventInterface && e.Name == ifName)
			sawLog = sawLog || (e.Kind == device.EventSyslog && strings.Contains(e.Log.Message, ifName+", changed state to down"))
		case <-time.After(testwait.Timeout(10 * time.Second)):
			t.Fatalf("no event for 10 s: interface event %v, log line %v", sawIf, sawLog)
		}
	}
	t.Logf("link_down reached Telemetry.Subscribe in %s", time.Since(start))
	// The link carried r1's BGP session to r2: its drop is logged too.
	has := func(mnemonic, words string) bool {
		logs, err := d.Syslog(ctxT(t), 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range logs {
			if e.Mnemonic == mnemonic && strings.Contains(e.Message, words) {
				return true
			}
		}
		return false
	}
	if !has("LINK-3-UPDOWN", ifName+", changed state to down") {
		t.Error("Syslog has no LINK-3-UPDOWN line for the link")
	}
	if !eventually(3*time.Second, func() bool { return has("BGP-5-ADJCHANGE", "Down") }) {
		t.Error("Syslog has no BGP-5-ADJCHANGE Down line after the link carrying the session went down")
	}
}

// TestStreamDropped: without Reconnect, a target that drops the stream
// ends Watch with a retryable -32082.
func TestStreamDropped(t *testing.T) {
	l := startLab(t, gnmiserver.Options{})
	d := openURL(t, l.URL())
	rec := newRecorder()
	done := make(chan error, 1)
	go func() {
		done <- d.Watch(context.Background(), gnmi.Subscription{Mode: gnmi.ModeOnChange,
			Paths: []string{"/openconfig-interfaces:interfaces"}}, rec.fn)
	}()
	<-rec.synced
	l.Stop()
	select {
	case err := <-done:
		ne := wantCode(t, "dropped stream", err, netproto.CodeUnreachable)
		if !ne.RetryPossible || !strings.Contains(ne.Detail, "dropped") {
			t.Errorf("error %v: want a retryable error saying the stream was dropped", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not end when the server stopped")
	}
}

// TestSubscribeModes: ONCE returns after the leaves; SAMPLE repeats them;
// a path the target does not model is refused at once, reconnecting or
// not.
func TestSubscribeModes(t *testing.T) {
	l := startLab(t, gnmiserver.Options{})
	d := openURL(t, l.URL())
	rec := newRecorder()
	if err := d.Watch(ctxT(t), gnmi.Subscription{Mode: gnmi.ModeOnce, Paths: []string{operPath}}, rec.fn); err != nil {
		t.Fatalf("ONCE: %v", err)
	}
	if len(rec.updates) != 1 || rec.updates[0].Value != "UP" {
		t.Errorf("ONCE gave %+v, want the one leaf", rec.updates)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	rec = newRecorder()
	err := d.Watch(ctx, gnmi.Subscription{Mode: gnmi.ModeSample, Interval: 100 * time.Millisecond, Paths: []string{operPath}}, rec.fn)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("SAMPLE ended with %v", err)
	}
	if n := len(rec.updates); n < 3 {
		t.Errorf("SAMPLE every 100 ms gave %d updates in 600 ms", n)
	}

	for _, reconnect := range []bool{false, true} {
		err := d.Watch(ctxT(t), gnmi.Subscription{Mode: gnmi.ModeOnChange, Reconnect: reconnect,
			Paths: []string{"/drivertest-unknown-module:nothing"}}, func(gnmi.Batch) {})
		wantCode(t, "subscription to an unknown module", err, netproto.CodeConfigIncompatible)
	}
}
