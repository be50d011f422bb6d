package fault_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/topology"
)

// backendName returns a backend name not used yet in this process (tests
// may run more than once in it; a name is created once).
func backendName(prefix string) string {
	backendSeq++
	return fmt.Sprintf("%s-%d", prefix, backendSeq)
}

var backendSeq int

// testLab records what the registry asks of it.
type testLab struct{ calls []string }

func (l *testLab) record(what string) fault.Func[*testLab] {
	return func(l *testLab, _ context.Context, f topology.Fault) error {
		l.calls = append(l.calls, what+" "+f.Name)
		return nil
	}
}

// TestBackend exercises one backend's bindings: lookups, applying and
// clearing through them, and the refusals.
func TestBackend(t *testing.T) {
	var rec testLab
	b := fault.NewBackend[*testLab](backendName("test"), "the test lab")
	b.Register("link_down", fault.Impl[*testLab]{Apply: rec.record("apply"), Clear: rec.record("clear")})
	b.Register("host_incorrect_ip", fault.Impl[*testLab]{Apply: rec.record("apply"), Clear: rec.record("clear"), Config: true})
	b.Unsupported("link_detach", "no carrier switch")
	if got, want := b.Names(), []string{"host_incorrect_ip", "link_down"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	ctx := context.Background()
	tests := []struct {
		name    string
		fault   topology.Fault
		wantErr string // "": none
		config  bool
	}{
		{name: "built", fault: topology.Fault{Name: "link_down", Target: "r1:eth0"}},
		{name: "built config", fault: topology.Fault{Name: "host_incorrect_ip", Target: "h1"}, config: true},
		{name: "unsupported", fault: topology.Fault{Name: "link_detach", Target: "r1:eth0"},
			wantErr: "fault link_detach is not built on the test lab: no carrier switch (it builds host_incorrect_ip, link_down)"},
		{name: "unbound", fault: topology.Fault{Name: "link_flap", Target: "r1:eth0"},
			wantErr: "fault link_flap is not built on the test lab: no binding registered (it builds host_incorrect_ip, link_down)"},
		{name: "unknown", fault: topology.Fault{Name: "no_such_fault", Target: "r1"}, wantErr: `fault "no_such_fault": unknown name (known: arp_acl_block, `},
		{name: "bad target", fault: topology.Fault{Name: "link_down", Target: "r1"}, wantErr: "want device:interface"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec.calls = nil
			errA := b.Apply(ctx, &rec, tc.fault)
			errC := b.Clear(ctx, &rec, tc.fault)
			if tc.wantErr != "" {
				for _, err := range []error{errA, errC} {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Errorf("error %v, want %q", err, tc.wantErr)
					}
				}
				if len(rec.calls) != 0 {
					t.Errorf("refused, yet called: %v", rec.calls)
				}
				return
			}
			if errA != nil || errC != nil {
				t.Fatalf("Apply: %v; Clear: %v", errA, errC)
			}
			if want := []string{"apply " + tc.fault.Name, "clear " + tc.fault.Name}; !slices.Equal(rec.calls, want) {
				t.Errorf("calls %v, want %v", rec.calls, want)
			}
			impl, err := b.Lookup(tc.fault.Name)
			if err != nil || impl.Config != tc.config {
				t.Errorf("Lookup = Config %v, %v; want Config %v", impl.Config, err, tc.config)
			}
		})
	}
	if built, reason, err := fault.Status(b.Name(), "link_detach"); built || reason != "no carrier switch" || err != nil {
		t.Errorf("Status(link_detach) = %v, %q, %v", built, reason, err)
	}
	if missing, _ := fault.Missing(b.Name()); slices.Contains(missing, "link_down") || !slices.Contains(missing, "link_flap") || slices.Contains(missing, "link_detach") {
		t.Errorf("Missing = %v", missing)
	}
}

// TestRegisterPanics: binding mistakes are the program's, caught when the
// backend's package is initialised.
func TestRegisterPanics(t *testing.T) {
	b := fault.NewBackend[*testLab](backendName("panics"), "the panicking lab")
	noop := func(*testLab, context.Context, topology.Fault) error { return nil }
	b.Register("link_down", fault.Impl[*testLab]{Apply: noop, Clear: noop})
	tests := []struct {
		name string
		bind func()
		want string
	}{
		{"unknown name", func() { b.Register("no_such_fault", fault.Impl[*testLab]{Apply: noop, Clear: noop}) }, "unknown name"},
		{"bound twice", func() { b.Register("link_down", fault.Impl[*testLab]{Apply: noop, Clear: noop}) }, "bound twice"},
		{"bound and unsupported", func() { b.Unsupported("link_down", "why") }, "bound twice"},
		{"no Clear", func() { b.Register("link_flap", fault.Impl[*testLab]{Apply: noop}) }, "without Apply or Clear"},
		{"no reason", func() { b.Unsupported("link_detach", "") }, "without a reason"},
		{"backend twice", func() { fault.NewBackend[*testLab](b.Name(), "again") }, "created twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Errorf("panic %v, want one with %q", r, tc.want)
				}
			}()
			tc.bind()
		})
	}
}
