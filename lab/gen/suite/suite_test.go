package suite

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/netmcp/netmcp/lab/gen"
	"github.com/netmcp/netmcp/lab/score"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// small are the networks of the tests: every shape, small, the dialects
// in turn.
var small = []gen.Options{
	{Shape: gen.ShapeRing, Routers: 5, Seed: 11},
	{Shape: gen.ShapeMesh, Routers: 4, Seed: 12, Dialect: gen.DialectVRP},
	{Shape: gen.ShapeMultiAS, Routers: 6, Seed: 13, Dialect: gen.DialectXR},
	{Shape: gen.ShapeFabric, Routers: 5, Seed: 14},
	{Shape: gen.ShapeHubSpoke, Routers: 4, Seed: 15},
}

// smallOptions are the options of the shared suite.
var smallOptions = Options{Networks: small, Seed: 3, Pairs: 2, Healthy: 1}

var (
	shared    *Suite
	sharedErr error
	once      sync.Once
)

// sharedSuite generates the suite of small networks once for the tests.
func sharedSuite(t *testing.T) *Suite {
	t.Helper()
	once.Do(func() { shared, sharedErr = Generate(smallOptions) })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// visibleEverywhere are the names expected visible on every network; the
// simulator carries no HTTP traffic, so an HTTP block shows only in the
// configuration.
func visibleEverywhere() []string {
	return slices.DeleteFunc(SimNames(), func(n string) bool { return n == "http_acl_block" })
}

// TestGenerate checks the suite's make-up: on every network a case for
// every name, pairs and a healthy case, each anomaly with symptoms.
func TestGenerate(t *testing.T) {
	s := sharedSuite(t)
	want := visibleEverywhere()
	for _, net := range small {
		var names []string
		pairs, healthy := 0, 0
		for _, c := range s.Cases {
			if c.Network != net {
				continue
			}
			switch len(c.Faults) {
			case 0:
				healthy++
			case 1:
				names = append(names, c.Truth.RootCauseName...)
			case 2:
				pairs++
			}
			if c.Truth.IsAnomaly != (c.SymptomCount > 0) || len(c.Symptoms) > maxSymptoms {
				t.Errorf("%s: anomaly %v with %d symptoms %q", c.ID, c.Truth.IsAnomaly, c.SymptomCount, c.Symptoms)
			}
		}
		for _, n := range want {
			if !slices.Contains(names, n) {
				t.Errorf("%s: no case of %s (unseen: %+v)", net.Name(), n, s.Unseen)
			}
		}
		if pairs != smallOptions.Pairs || healthy != smallOptions.Healthy {
			t.Errorf("%s: %d pairs and %d healthy cases", net.Name(), pairs, healthy)
		}
	}
	for _, u := range s.Unseen {
		if slices.Contains(want, u.Name) {
			t.Errorf("unseen %s on %s: %s (tried %q)", u.Name, u.Network, u.Reason, u.Tried)
		}
	}
}

// TestTruth checks every case's ground truth against the conventions.
func TestTruth(t *testing.T) {
	s := sharedSuite(t)
	topos := map[gen.Options]topology.Topology{}
	for _, c := range s.Cases {
		topo, ok := topos[c.Network]
		if !ok {
			var err error
			if topo, err = gen.Generate(c.Network); err != nil {
				t.Fatal(err)
			}
			topos[c.Network] = topo
		}
		fs, err := c.ParsedFaults()
		if err != nil {
			t.Fatal(err)
		}
		var devs []string
		for _, f := range fs {
			dev, _, isEnd := topology.SplitEnd(f.Target)
			if !isEnd {
				dev = f.Target
			}
			spec, _ := topology.LookupFault(f.Name)
			want := 1
			if spec.Targets[0] == topology.TargetLink {
				want = 2
			}
			got := score.FaultDevices(topo, f)
			if len(got) != want || !slices.Contains(got, dev) {
				t.Errorf("%s: %s concerns %v, want %d device(s) with %s", c.ID, f, got, want, dev)
			}
			devs = append(devs, got...)
		}
		slices.Sort(devs)
		if devs = slices.Compact(devs); !slices.Equal(c.Truth.FaultyDevices, devs) {
			t.Errorf("%s: faulty devices %v, want %v", c.ID, c.Truth.FaultyDevices, devs)
		}
		if len(fs) == 0 && (c.Truth.IsAnomaly || len(c.Truth.RootCauseName) > 0 || len(c.Truth.FaultyDevices) > 0) {
			t.Errorf("%s: healthy case with truth %+v", c.ID, c.Truth)
		}
		for _, f := range fs {
			if gen.External(strings.Split(f.Target, ":")[0]) {
				t.Errorf("%s: fault on a provider's device: %s", c.ID, f)
			}
		}
	}
}

func TestTruthOf(t *testing.T) {
	topo := topology.Topology{Links: []topology.Link{
		{A: "r1:Gi0/0/0/0", B: "r2:Gi0/0/0/0"},
		{A: "r1:Gi0/0/0/1", B: "h1:eth0"},
	}}
	for _, tc := range []struct {
		faults []string
		want   Truth
	}{
		{nil, Truth{FaultyDevices: []string{}, RootCauseName: []string{}}},
		{[]string{"link_down h1:eth0"}, Truth{true, []string{"h1", "r1"}, []string{"link_down"}}},
		{[]string{"link_high_latency r2:Gi0/0/0/0"}, Truth{true, []string{"r1", "r2"}, []string{"link_high_latency"}}},
		{[]string{"link_detach r2:Gi0/0/0/0"}, Truth{true, []string{"r2"}, []string{"link_detach"}}},
		{[]string{"mtu_mismatch r1:Gi0/0/0/0"}, Truth{true, []string{"r1"}, []string{"mtu_mismatch"}}},
		{[]string{"host_ip_conflict h1 with=h2"}, Truth{true, []string{"h1"}, []string{"host_ip_conflict"}}},
		{[]string{"mac_address_conflict h2 with=h1"}, Truth{true, []string{"h2"}, []string{"mac_address_conflict"}}},
		{[]string{"dns_port_blocked r1:Gi0/0/0/1", "frr_service_down r2"},
			Truth{true, []string{"r1", "r2"}, []string{"dns_port_blocked", "frr_service_down"}}},
		{[]string{"link_flap r1:Gi0/0/0/0", "bgp_asn_misconfig r1"},
			Truth{true, []string{"r1", "r2"}, []string{"bgp_asn_misconfig", "link_flap"}}},
	} {
		var fs []topology.Fault
		for _, w := range tc.faults {
			f, err := topology.ParseFault(w)
			if err != nil {
				t.Fatal(err)
			}
			fs = append(fs, f)
		}
		got := TruthOf(topo, fs)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, want %+v", tc.faults, got, tc.want)
		}
		// The truth scores itself perfectly as an answer.
		a := score.Answer{IsAnomaly: got.IsAnomaly, FaultyDevices: got.FaultyDevices, RootCauseName: got.RootCauseName}
		if s := score.Of(a, got.Score()); !s.Detection || s.Localization != 1 || s.RootCause != 1 {
			t.Errorf("%q: the truth scores %+v against itself", tc.faults, s)
		}
	}
}

// TestReadWrite writes the suite as YAML and as JSON and reads it back.
func TestReadWrite(t *testing.T) {
	s := sharedSuite(t)
	for _, write := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return s.WriteYAML(b) },
		func(b *bytes.Buffer) error { return s.WriteJSON(b) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		got, err := Read(&b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("read back a different suite")
		}
	}
	if _, err := Read(strings.NewReader("cases:\n  - id: x\n    network: {shape: star, routers: 4}\n")); err == nil {
		t.Error("a case on an unknown shape was read")
	}
	if _, err := Read(strings.NewReader("cases:\n  - id: x\n    network: {shape: ring, routers: 4}\n    faults: [link_up r1]\n")); err == nil {
		t.Error("a case with an unknown fault was read")
	}
}

// TestReplay starts cases as `lab up --topology` would, from
// Case.Topology with the faults in it, and checks that they show the
// same symptoms as when the suite was made.
func TestReplay(t *testing.T) {
	s := sharedSuite(t)
	for i, c := range s.Cases {
		if i%7 != 0 {
			continue
		}
		topo, err := c.Topology()
		if err != nil {
			t.Fatal(err)
		}
		lab, err := sim.NewLab(topo, gen.LabOptions())
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		healthy, _ := gen.Generate(c.Network)
		chk := gen.NewChecker(healthy)
		base, err := sim.NewLab(healthy, gen.LabOptions())
		if err != nil {
			t.Fatal(err)
		}
		sym := chk.Observe(lab.Network()).Symptoms(chk.Observe(base.Network()))
		lab.Close()
		base.Close()
		if len(sym) != c.SymptomCount {
			t.Errorf("%s %q: %d symptoms on replay, %d when made: %q", c.ID, c.Faults, len(sym), c.SymptomCount, sym)
		}
	}
}

// TestSeeded checks that a suite is a function of its options, however
// many networks are checked at once.
func TestSeeded(t *testing.T) {
	o := Options{Networks: small[:2], Seed: 9, Pairs: 1, Healthy: 1, Names: []string{"link_down", "host_crash", "ospf_area_misconfiguration"}}
	o.Parallel = 1
	a, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	o.Parallel = 2
	b, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the same options gave two suites:\n%+v\n%+v", a, b)
	}
	if len(a.Cases) != 2*(3+1+1) {
		t.Errorf("%d cases, want 10", len(a.Cases))
	}
}

// TestKeepUnseen keeps a case of a name no target makes visible.
func TestKeepUnseen(t *testing.T) {
	s, err := Generate(Options{Networks: small[:1], Seed: 1, Names: []string{"http_acl_block"}, Attempts: 2, KeepUnseen: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Unseen) != 1 || len(s.Cases) != 1 || s.Cases[0].SymptomCount != 0 || !s.Cases[0].Truth.IsAnomaly {
		t.Fatalf("unseen %+v, cases %+v", s.Unseen, s.Cases)
	}
	if _, err := Generate(Options{Networks: small[:1], Names: []string{"link_up"}}); err == nil {
		t.Error("an unknown name was accepted")
	}
}

func TestNetworks(t *testing.T) {
	nets := Networks(5, 12, 4, 30)
	if !reflect.DeepEqual(nets, Networks(5, 12, 4, 30)) {
		t.Error("Networks is not a function of its arguments")
	}
	for i, n := range nets {
		if err := n.Check(); err != nil || n.Shape != gen.Shapes[i%len(gen.Shapes)] || n.Routers > 30 {
			t.Errorf("network %d: %+v: %v", i, n, err)
		}
	}
}

// TestCoverage checks that the targets spread over the network: backbone
// routers as well as access routers, shared LANs (a VLAN interface or a
// host with neighbours on its LAN), router-host links and hosts.
func TestCoverage(t *testing.T) {
	s := sharedSuite(t)
	seen := map[string]int{}
	for _, c := range s.Cases {
		topo, err := gen.Generate(c.Network)
		if err != nil {
			t.Fatal(err)
		}
		v := newView(topo)
		fs, _ := c.ParsedFaults()
		for _, f := range fs {
			dev, ifn, _ := topology.SplitEnd(f.Target)
			if dev == "" {
				dev = f.Target
			}
			d := v.devs[dev]
			switch {
			case d.Kind == topology.KindHost:
				seen["host"]++
				if len(v.lanMates[dev]) > 0 {
					seen["shared LAN"]++
				}
			case d.Interfaces[0].OSPF != nil && d.Interfaces[0].OSPF.Area == "0.0.0.0":
				seen["backbone router"]++
			default:
				seen["access router"]++
			}
			if it := iface(d, ifn); it != nil && it.RoutedVLAN > 0 {
				seen["shared LAN"]++
			}
			if spec, _ := topology.LookupFault(f.Name); spec.Targets[0] == topology.TargetLink {
				for _, fd := range score.FaultDevices(topo, f) {
					if v.devs[fd].Kind == topology.KindHost {
						seen["router-host link"]++
					}
				}
			}
		}
	}
	for _, k := range []string{"host", "shared LAN", "backbone router", "access router", "router-host link"} {
		if seen[k] == 0 {
			t.Errorf("no fault on a %s: %v", k, seen)
		}
	}
	t.Logf("targets: %v", seen)
}
