// Package drivertest is the shared conformance table every device driver
// passes: one list of Driver (and, where implemented, Configurer)
// behaviours, run by Run against an opened driver.
//
// Drivers legitimately differ (the snmp driver is read-only, the linux
// driver serves no YANG data yet); a driver declares how in Capabilities,
// and the table asserts the declaration itself: a driver that says it is
// read-only must not implement device.Configurer and must refuse the
// configuration datastores, one that serves no YANG must refuse every Get
// with -32084. Nothing is skipped silently: a behaviour that does not
// apply says why in the test log.
package drivertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/netproto"
)

// Paths the table uses.
const (
	PathInterfaces = "/openconfig-interfaces:interfaces"
	// PathUnknown is well-formed but names a module no driver models.
	PathUnknown = "/drivertest-unknown-module:nothing"
	// PathMissing is modelled but holds no data on any device.
	PathMissing = "/openconfig-interfaces:interfaces/interface[name='drivertest-no-such-interface']"
	// CommandUnknown is no device's command.
	CommandUnknown = "drivertest-no-such-command --really"
)

// Capabilities declares how a driver behaves where drivers differ.
type Capabilities struct {
	// YANG: Get serves RFC 7951 data (Info.YangModules is not empty),
	// including /openconfig-interfaces:interfaces in the operational
	// datastore. False: every Get fails with -32084.
	YANG bool
	// Configurer: the driver implements device.Configurer. False: it does
	// not, and (with YANG) Get of running and candidate fails with -32084.
	Configurer bool
	// Telemetry: the driver implements device.Telemetry.
	Telemetry bool
	// InterfacesCommand is an Exec command whose output names every
	// interface of the interfaces tree ("" if the driver has none).
	InterfacesCommand string
	// Remote: Exec (and Get, with YANG) reach the device on every call,
	// so a cancelled context must make them fail with context.Canceled.
	// False: a call may complete from memory, but if it fails on a
	// cancelled context, the error is context.Canceled.
	Remote bool
	// Edit returns the edit of the Configurer round trip for an interface
	// of the device; nil: set the interface's openconfig description.
	Edit func(ifName string) device.Edit
}

// Open opens a fresh driver for one behaviour; Run closes it.
type Open func(t *testing.T) device.Driver

// callTimeout bounds one call in the table on a quiet machine (stretched
// by testwait.Timeout on a busy one): generous, never a speed test.
const callTimeout = 60 * time.Second

// behaviour is one row of the table.
type behaviour struct {
	name string
	// applies reports whether the row applies, and if not, why.
	applies func(c Capabilities) (bool, string)
	run     func(t *testing.T, d device.Driver, c Capabilities)
}

func always(Capabilities) (bool, string) { return true, "" }

func ifYANG(c Capabilities) (bool, string) {
	return c.YANG, "the driver serves no YANG data (Capabilities.YANG false; asserted by get-without-yang)"
}

func ifConfigurer(c Capabilities) (bool, string) {
	return c.Configurer, "the driver is read-only (Capabilities.Configurer false; asserted by interfaces-declared and read-only-datastores)"
}

var table = []behaviour{
	{"info", always, testInfo},
	{"interfaces-declared", always, testDeclared},
	{"get-without-yang", func(c Capabilities) (bool, string) {
		return !c.YANG, "the driver serves YANG data (asserted by get-root)"
	}, testGetWithoutYANG},
	{"get-root", ifYANG, testGetRoot},
	{"get-interfaces-match-exec", ifYANG, testInterfacesMatchExec},
	{"get-unknown-module", always, testGetUnknown},
	{"get-missing-entry", ifYANG, testGetMissing},
	{"get-bad-syntax", ifYANG, testGetBadSyntax},
	{"read-only-datastores", func(c Capabilities) (bool, string) {
		if c.Configurer || !c.YANG {
			return false, "applies to read-only drivers that serve YANG data"
		}
		return true, ""
	}, testReadOnlyDatastores},
	{"exec-unknown", always, testExecUnknown},
	{"context-cancelled", always, testCancelled},
	{"concurrent-calls", always, testConcurrent},
	{"configure-roundtrip", ifConfigurer, testRoundtrip},
	{"lock-conflict", ifConfigurer, testLockConflict},
	{"close-idempotent", always, testClose},
}

// Run runs the whole table, each behaviour against a driver of its own
// from open.
func Run(t *testing.T, caps Capabilities, open Open) {
	t.Helper()
	for _, b := range table {
		t.Run(b.name, func(t *testing.T) {
			if ok, why := b.applies(caps); !ok {
				t.Skipf("not applicable: %s", why)
			}
			d := open(t)
			if d == nil {
				t.Fatal("open returned no driver")
			}
			if b.name != "close-idempotent" {
				t.Cleanup(func() { d.Close() })
			}
			b.run(t, d, caps)
		})
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(callTimeout))
	t.Cleanup(cancel)
	return ctx
}

// wantCode asserts err is a *netproto.Error with code.
func wantCode(t *testing.T, what string, err error, code int) {
	t.Helper()
	var ne *netproto.Error
	if !errors.As(err, &ne) {
		t.Fatalf("%s: error %v (%T), want a *netproto.Error %d %s", what, err, err, code, netproto.CodeName(code))
	}
	if ne.Code != code {
		t.Fatalf("%s: code %d (%s), want %d (%s): %v", what, ne.Code, netproto.CodeName(ne.Code), code, netproto.CodeName(code), err)
	}
	if ne.Detail == "" {
		t.Errorf("%s: the error has no detail", what)
	}
}

func testInfo(t *testing.T, d device.Driver, c Capabilities) {
	i := d.Info()
	if i.Name == "" || i.CLIDialect == "" {
		t.Errorf("Info name %q, cliDialect %q: both must be set", i.Name, i.CLIDialect)
	}
	if i.YangModules == nil || i.Datastores == nil || i.NotificationStreams == nil {
		t.Errorf("Info lists must be empty, not nil (they are JSON arrays of the capability object): %+v", i)
	}
	if c.YANG != (len(i.YangModules) > 0) {
		t.Errorf("Capabilities.YANG is %v but Info.YangModules is %v", c.YANG, i.YangModules)
	}
	if c.YANG && len(i.Datastores) == 0 {
		t.Error("a driver serving YANG data lists no datastore")
	}
	if c.Configurer && (!slices.Contains(i.Datastores, device.Running) || !slices.Contains(i.Datastores, device.Candidate)) {
		t.Errorf("a Configurer lists datastores %v, want running and candidate among them", i.Datastores)
	}
	if !c.Configurer && (slices.Contains(i.Datastores, device.Candidate) || i.SupportsRollback) {
		t.Errorf("a read-only driver advertises candidate %v or rollback %v", i.Datastores, i.SupportsRollback)
	}
	if b, err := json.Marshal(i); err != nil || !strings.Contains(string(b), `"configDatastore"`) {
		t.Errorf("Info does not marshal as the capability object: %s, %v", b, err)
	}
}

func testDeclared(t *testing.T, d device.Driver, c Capabilities) {
	_, isCfg := d.(device.Configurer)
	_, isTel := d.(device.Telemetry)
	if isCfg != c.Configurer {
		t.Errorf("implements device.Configurer: %v, Capabilities.Configurer: %v", isCfg, c.Configurer)
	}
	if isTel != c.Telemetry {
		t.Errorf("implements device.Telemetry: %v, Capabilities.Telemetry: %v", isTel, c.Telemetry)
	}
}

func testGetWithoutYANG(t *testing.T, d device.Driver, c Capabilities) {
	for _, p := range []string{"/", PathInterfaces} {
		_, err := d.Get(ctxT(t), device.Operational, p)
		wantCode(t, "Get "+p, err, netproto.CodeConfigIncompatible)
	}
}

// operational is the datastore the table reads: operational where listed.
func operational(d device.Driver) device.Datastore {
	ds := d.Info().Datastores
	if len(ds) == 0 || slices.Contains(ds, device.Operational) {
		return device.Operational
	}
	return ds[0]
}

func testGetRoot(t *testing.T, d device.Driver, c Capabilities) {
	v, err := d.Get(ctxT(t), operational(d), "/")
	if err != nil {
		t.Fatalf("Get /: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		t.Fatalf("Get / = %T %v, want a non-empty object", v, v)
	}
	for k := range m {
		if !strings.Contains(k, ":") {
			t.Errorf("top-level member %q is not module-qualified (RFC 7951 section 4)", k)
		}
	}
	if _, err := json.Marshal(v); err != nil {
		t.Errorf("the tree does not marshal: %v", err)
	}
	names := interfaceNames(t, m["openconfig-interfaces:interfaces"])
	if len(names) == 0 {
		t.Fatal("Get / holds no openconfig-interfaces interface")
	}
	again := getInterfaceNames(t, d)
	if !slices.Equal(names, again) {
		t.Errorf("interfaces of Get / %v differ from Get %s %v", names, PathInterfaces, again)
	}
}

// interfaceNames lists the names of an openconfig-interfaces container, sorted.
func interfaceNames(t *testing.T, v any) []string {
	t.Helper()
	m, _ := v.(map[string]any)
	l, _ := m["interface"].([]any)
	var out []string
	for _, e := range l {
		em, _ := e.(map[string]any)
		n, _ := em["name"].(string)
		if n == "" {
			t.Errorf("an interface without a name: %v", e)
			continue
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func getInterfaceNames(t *testing.T, d device.Driver) []string {
	t.Helper()
	v, err := d.Get(ctxT(t), operational(d), PathInterfaces)
	if err != nil {
		t.Fatalf("Get %s: %v", PathInterfaces, err)
	}
	// A driver returns the container's content; accept the container
	// itself too (RFC 7951 wraps it in its qualified name).
	if m, ok := v.(map[string]any); ok {
		if inner, ok := m["openconfig-interfaces:interfaces"]; ok {
			v = inner
		}
	}
	return interfaceNames(t, v)
}

func testInterfacesMatchExec(t *testing.T, d device.Driver, c Capabilities) {
	names := getInterfaceNames(t, d)
	if len(names) == 0 {
		t.Fatalf("Get %s holds no interface", PathInterfaces)
	}
	if c.InterfacesCommand == "" {
		t.Logf("no InterfacesCommand declared: names %v checked against Get / only", names)
		return
	}
	out, err := d.Exec(ctxT(t), c.InterfacesCommand)
	if err != nil {
		t.Fatalf("Exec %q: %v", c.InterfacesCommand, err)
	}
	for _, n := range names {
		if !strings.Contains(out, n) {
			t.Errorf("interface %q of the tree is missing from %q:\n%s", n, c.InterfacesCommand, out)
		}
	}
}

func testGetUnknown(t *testing.T, d device.Driver, c Capabilities) {
	_, err := d.Get(ctxT(t), operational(d), PathUnknown)
	wantCode(t, "Get "+PathUnknown, err, netproto.CodeConfigIncompatible)
}

func testGetMissing(t *testing.T, d device.Driver, c Capabilities) {
	_, err := d.Get(ctxT(t), operational(d), PathMissing)
	if !errors.Is(err, device.ErrNotFound) {
		t.Fatalf("Get %s: %v, want device.ErrNotFound", PathMissing, err)
	}
}

func testGetBadSyntax(t *testing.T, d device.Driver, c Capabilities) {
	_, err := d.Get(ctxT(t), operational(d), "/openconfig-interfaces:interfaces/interface[name='x")
	wantCode(t, "Get of an unterminated predicate", err, netproto.CodeYangSyntaxError)
}

func testReadOnlyDatastores(t *testing.T, d device.Driver, c Capabilities) {
	for _, ds := range []device.Datastore{device.Running, device.Candidate} {
		_, err := d.Get(ctxT(t), ds, PathInterfaces)
		wantCode(t, fmt.Sprintf("Get %s of a read-only driver", ds), err, netproto.CodeConfigIncompatible)
	}
}

func testExecUnknown(t *testing.T, d device.Driver, c Capabilities) {
	out, err := d.Exec(ctxT(t), CommandUnknown)
	if err == nil {
		t.Fatalf("Exec %q succeeded: %q", CommandUnknown, out)
	}
	wantCode(t, "Exec of an unknown command", err, netproto.CodeConfigIncompatible)
}

func testCancelled(t *testing.T, d device.Driver, c Capabilities) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	type call struct {
		what string
		f    func() error
	}
	var calls []call
	if c.YANG {
		calls = append(calls, call{"Get", func() error { _, err := d.Get(ctx, operational(d), PathInterfaces); return err }})
	}
	if c.InterfacesCommand != "" {
		calls = append(calls, call{"Exec", func() error { _, err := d.Exec(ctx, c.InterfacesCommand); return err }})
	}
	if len(calls) == 0 {
		t.Log("no call that reaches the device is declared (neither YANG nor InterfacesCommand)")
	}
	for _, cl := range calls {
		done := make(chan error, 1)
		go func() { done <- cl.f() }()
		select {
		case err := <-done:
			switch {
			case c.Remote && !errors.Is(err, context.Canceled):
				t.Errorf("%s with a cancelled context: %v, want context.Canceled", cl.what, err)
			case err != nil && !errors.Is(err, context.Canceled):
				t.Errorf("%s with a cancelled context failed with %v, want success or context.Canceled", cl.what, err)
			}
		case <-time.After(testwait.Timeout(callTimeout)):
			t.Fatalf("%s with a cancelled context did not return within %s", cl.what, testwait.Timeout(callTimeout))
		}
	}
}

func testConcurrent(t *testing.T, d device.Driver, c Capabilities) {
	const workers, each = 8, 4
	var want []string
	if c.YANG {
		want = getInterfaceNames(t, d)
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*2)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if c.YANG {
					v, err := d.Get(ctxT(t), operational(d), PathInterfaces)
					if err != nil {
						errs <- fmt.Errorf("concurrent Get: %w", err)
						continue
					}
					if m, ok := v.(map[string]any); ok {
						if inner, ok := m["openconfig-interfaces:interfaces"]; ok {
							v = inner
						}
					}
					if got := interfaceNames(t, v); !slices.Equal(got, want) {
						errs <- fmt.Errorf("concurrent Get gave interfaces %v, want %v", got, want)
					}
				}
				if c.InterfacesCommand != "" {
					if _, err := d.Exec(ctxT(t), c.InterfacesCommand); err != nil {
						errs <- fmt.Errorf("concurrent Exec: %w", err)
					}
				}
				d.Info()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testClose(t *testing.T, d device.Driver, c Capabilities) {
	err1 := d.Close()
	if err1 != nil {
		t.Errorf("first Close: %v", err1)
	}
	if err2 := d.Close(); err2 != err1 {
		t.Errorf("second Close: %v, want the first's result %v", err2, err1)
	}
	// A call after Close must return (an error or not), never hang or panic.
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Exec(ctxT(t), CommandUnknown)
		d.Info()
	}()
	select {
	case <-done:
	case <-time.After(testwait.Timeout(callTimeout)):
		t.Fatal("a call after Close did not return")
	}
}

var (
	ownerA = device.Owner{Session: "drivertest-a", User: "alice"}
	ownerB = device.Owner{Session: "drivertest-b", User: "bob"}
)

func defaultEdit(ifName string) device.Edit {
	return device.Edit{Operation: device.OpMerge,
		Path:  fmt.Sprintf("/openconfig-interfaces:interfaces/interface[name='%s']/config/description", ifName),
		Value: "netmcp drivertest " + time.Now().UTC().Format("150405.000")}
}

// getOrAbsent reads path of running: its value, or nil when absent.
func getOrAbsent(t *testing.T, d device.Driver, path string) any {
	t.Helper()
	v, err := d.Get(ctxT(t), device.Running, path)
	if errors.Is(err, device.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatalf("Get running %s: %v", path, err)
	}
	return v
}

func jsonEq(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// configEdit returns d as a Configurer and the edit the table makes on d:
// c.Edit (or defaultEdit) of its first interface.
func configEdit(t *testing.T, d device.Driver, c Capabilities) (device.Configurer, device.Edit) {
	t.Helper()
	names := getInterfaceNames(t, d)
	if len(names) == 0 {
		t.Fatal("no interface to edit")
	}
	mk := c.Edit
	if mk == nil {
		mk = defaultEdit
	}
	return d.(device.Configurer), mk(names[0])
}

func testRoundtrip(t *testing.T, d device.Driver, c Capabilities) {
	cfg, e := configEdit(t, d, c)
	ctx := ctxT(t)
	before := getOrAbsent(t, d, e.Path)
	if err := cfg.Edit(ctx, ownerA, []device.Edit{e}); err != nil {
		t.Fatalf("Edit %+v: %v", e, err)
	}
	t.Cleanup(func() { cfg.Discard(context.Background(), ownerA); cfg.Release(ownerA) })
	diff, err := cfg.Diff(ctx, ownerA)
	if err != nil || len(diff.Changes) == 0 || diff.Unified == "" {
		t.Fatalf("Diff after an edit: %+v, %v; want changes and a unified diff", diff, err)
	}
	if err := cfg.Validate(ctx, ownerA); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if v := getOrAbsent(t, d, e.Path); !jsonEq(v, before) {
		t.Fatalf("running changed before the commit: %v, was %v", v, before)
	}
	res, err := cfg.Commit(ctx, ownerA, device.CommitOptions{Comment: "drivertest"})
	if err != nil || res.Status != device.StatusCommitted {
		t.Fatalf("Commit: %+v, %v", res, err)
	}
	if v := getOrAbsent(t, d, e.Path); !jsonEq(v, e.Value) {
		t.Fatalf("running after the commit: %v, want %v", v, e.Value)
	}
	h, err := cfg.History(ctx)
	if err != nil || len(h) == 0 {
		t.Fatalf("History after a commit: %v, %v", h, err)
	}
	if h[0].Comment != "drivertest" {
		t.Errorf("newest history entry %+v, want the comment drivertest", h[0])
	}
	rb, err := cfg.Rollback(ctx, ownerA, "")
	if err != nil || rb.Status == "" {
		t.Fatalf("Rollback: %+v, %v", rb, err)
	}
	if v := getOrAbsent(t, d, e.Path); !jsonEq(v, before) {
		t.Fatalf("running after the rollback: %v, want %v as before the edit", v, before)
	}
}

func testLockConflict(t *testing.T, d device.Driver, c Capabilities) {
	cfg, e := configEdit(t, d, c)
	ctx := ctxT(t)
	t.Cleanup(func() {
		cfg.Discard(context.Background(), ownerA)
		cfg.Discard(context.Background(), ownerB)
		cfg.Release(ownerA)
		cfg.Release(ownerB)
	})
	if err := cfg.Edit(ctx, ownerA, []device.Edit{e}); err != nil {
		t.Fatalf("Edit by A: %v", err)
	}
	if err := cfg.Edit(ctx, ownerB, []device.Edit{e}); err == nil {
		t.Fatal("B edited the candidate while A holds it")
	} else if !strings.Contains(strings.ToLower(err.Error()), "lock") {
		t.Errorf("B's refusal does not say the candidate is locked: %v", err)
	}
	if _, err := cfg.Commit(ctx, ownerB, device.CommitOptions{}); err == nil {
		t.Error("B committed A's candidate")
	}
	if err := cfg.Discard(ctx, ownerA); err != nil {
		t.Fatalf("Discard by A: %v", err)
	}
	if err := cfg.Edit(ctx, ownerB, []device.Edit{e}); err != nil {
		t.Fatalf("Edit by B after A discarded: %v", err)
	}
	if err := cfg.Discard(ctx, ownerB); err != nil {
		t.Fatalf("Discard by B: %v", err)
	}
}
