package gen

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/netmcp/netmcp/lab/topology"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestGenerate generates networks of every shape, size class and
// dialect, checks what the issue asks of them (areas, iBGP and eBGP,
// LANs, servers apart from their clients, providers) and verifies them
// healthy in the simulator.
func TestGenerate(t *testing.T) {
	sizes := []int{4, 9, 27}
	if !testing.Short() {
		sizes = append(sizes, 60)
	}
	vlans := 0
	k := 0
	for _, shape := range Shapes {
		for _, n := range sizes {
			for _, seed := range []int64{1, 2} {
				if n == 60 && seed == 2 {
					continue
				}
				o := Options{Shape: shape, Routers: n, Seed: seed, Dialect: Dialects[k%len(Dialects)]}
				k++
				t.Run(o.Name(), func(t *testing.T) {
					topo, err := Generate(o)
					if err != nil {
						t.Fatal(err)
					}
					checkShape(t, o, topo)
					vlans += Summarize(topo).VLANLANs
					if err := Verify(topo); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
	if vlans == 0 {
		t.Error("no generated LAN is behind a VLAN interface")
	}
}

// checkShape checks the structure of a generated network.
func checkShape(t *testing.T, o Options, topo topology.Topology) {
	t.Helper()
	s := Summarize(topo)
	if s.Routers != o.Routers || s.Providers != providerCount(o.Routers) {
		t.Errorf("%d routers and %d providers, want %d and %d", s.Routers, s.Providers, o.Routers, providerCount(o.Routers))
	}
	if len(s.Areas) < 2 || s.Areas[0] != backbone {
		t.Errorf("OSPF areas %v: want the backbone and another", s.Areas)
	}
	if s.IBGP == 0 || s.EBGP < s.Providers {
		t.Errorf("%d iBGP and %d eBGP sessions", s.IBGP, s.EBGP)
	}
	if o.Shape == ShapeMultiAS && (len(s.ASes) < 2 || s.EBGP <= s.Providers) {
		t.Errorf("multi-as: ASes %v, %d eBGP sessions", s.ASes, s.EBGP)
	}
	if s.DNSServers == 0 || s.WebServers == 0 {
		t.Errorf("%d DNS and %d web servers", s.DNSServers, s.WebServers)
	}
	if d := o.dialect(); d != DialectMixed && s.Dialects[d] != s.Routers {
		t.Errorf("dialect %s: routers %v", d, s.Dialects)
	}
	devs := map[string]topology.Device{}
	for _, d := range topo.Devices {
		devs[d.Name] = d
	}
	// Every non-backbone area has an area border router.
	for _, area := range s.Areas[1:] {
		if !slices.ContainsFunc(topo.Devices, func(d topology.Device) bool {
			return inArea(d, area) && inArea(d, backbone)
		}) {
			t.Errorf("area %s has no area border router", area)
		}
	}
	// LANs hold one to four hosts; servers are on LANs without clients,
	// and every client's resolver is on another LAN than its own.
	lanOf := map[string]netip.Prefix{}
	server := map[netip.Prefix]bool{}
	count := map[netip.Prefix]int{}
	for _, d := range topo.Devices {
		if d.Kind != topology.KindHost {
			continue
		}
		p := netip.MustParsePrefix(d.Interfaces[0].Addresses[0]).Masked()
		lanOf[d.Name] = p
		count[p]++
		if d.DNS != nil || isWeb(topo, d) {
			server[p] = true
		}
	}
	for h, p := range lanOf {
		if count[p] < 1 || count[p] > 4 {
			t.Errorf("LAN %s has %d hosts", p, count[p])
		}
		d := devs[h]
		if d.DNS == nil && !isWeb(topo, d) && server[p] && !External(h) {
			t.Errorf("client %s is on the server LAN %s", h, p)
		}
		if len(d.DNSServers) > 0 && d.DNS == nil {
			if r := netip.MustParseAddr(d.DNSServers[0]); p.Contains(r) {
				t.Errorf("%s resolves through %s, on its own LAN", h, r)
			}
		}
	}
}

func inArea(d topology.Device, area string) bool {
	return slices.ContainsFunc(d.Interfaces, func(it topology.Interface) bool { return it.OSPF != nil && it.OSPF.Area == area })
}

func isWeb(topo topology.Topology, h topology.Device) bool {
	addr := netip.MustParsePrefix(h.Interfaces[0].Addresses[0]).Addr().String()
	for _, d := range topo.Devices {
		if d.DNS == nil {
			continue
		}
		for _, r := range d.DNS.Zones[0].Records {
			if strings.HasPrefix(r.Name, "www") && r.Value == addr {
				return true
			}
		}
	}
	return false
}

// TestGenerateSeeded checks that a network is a function of its options:
// the same options write the same YAML, another seed another network.
func TestGenerateSeeded(t *testing.T) {
	for _, shape := range Shapes {
		o := Options{Shape: shape, Routers: 12, Seed: 42}
		a, b := yamlOf(t, o), yamlOf(t, o)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two generations differ", o.Name())
		}
		o.Seed++
		if bytes.Equal(a, yamlOf(t, o)) {
			t.Errorf("%s: seeds 42 and 43 give the same network", shape)
		}
	}
}

func yamlOf(t *testing.T, o Options) []byte {
	t.Helper()
	topo, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteYAML(&b, topo); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGolden compares small networks with their files under testdata/
// (go test -update rewrites them).
func TestGolden(t *testing.T) {
	for _, o := range []Options{
		{Shape: ShapeRing, Routers: 4, Seed: 1},
		{Shape: ShapeMultiAS, Routers: 4, Seed: 7, Dialect: DialectXR},
	} {
		t.Run(o.Name(), func(t *testing.T) {
			got := yamlOf(t, o)
			path := filepath.Join("testdata", o.Name()+".yaml")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s (go test -update rewrites it)", o.Name(), path)
			}
			// The file is a topology the lab loads as it is.
			var topo topology.Topology
			if err := yaml.Unmarshal(want, &topo); err != nil {
				t.Fatal(err)
			}
			if err := Verify(topo); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Shape: "star", Routers: 10}, `shape "star"`},
		{Options{Shape: ShapeRing, Routers: 3}, "3 routers"},
		{Options{Shape: ShapeRing, Routers: 61}, "61 routers"},
		{Options{Shape: ShapeRing, Routers: 10, Dialect: "junos"}, `dialect "junos"`},
		{Options{Shape: ShapeFabric, Routers: 60, Dialect: DialectVRP}, ""},
	} {
		_, err := Generate(tc.o)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
}

// TestVerifyUnhealthy breaks generated networks and checks that Verify
// names what is broken.
func TestVerifyUnhealthy(t *testing.T) {
	base, err := Generate(Options{Shape: ShapeRing, Routers: 5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		breaks func(*topology.Topology)
		want   []string
	}{
		{"wrong remote AS", func(tp *topology.Topology) {
			d := device(tp, "r1")
			d.BGP.Neighbors[0].RemoteAS++
		}, []string{"bgp r1 ", "Bad Peer AS"}},
		{"area mismatch", func(tp *topology.Topology) {
			it := &device(tp, "r1").Interfaces[1]
			it.OSPF.Area = "0.0.0.99"
		}, []string{"ospf r1 " + device(&base, "r1").Interfaces[1].Name}},
		{"host on the wrong resolver", func(tp *topology.Topology) {
			for i := range tp.Devices {
				if d := &tp.Devices[i]; d.Kind == topology.KindHost && d.DNS == nil && len(d.DNSServers) > 0 {
					d.DNSServers = []string{"192.0.2.53"}
					return
				}
			}
		}, []string{"dns h", "from 192.0.2.53"}},
		{"shut interface", func(tp *topology.Topology) {
			device(tp, "r2").Interfaces[1].Shutdown = true
		}, []string{"ping link r2:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo, err := Generate(Options{Shape: ShapeRing, Routers: 5, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			tc.breaks(&topo)
			err = Verify(topo)
			var ue *UnhealthyError
			if !errors.As(err, &ue) {
				t.Fatalf("Verify: %v, want an *UnhealthyError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
}

func device(tp *topology.Topology, name string) *topology.Device {
	for i := range tp.Devices {
		if tp.Devices[i].Name == name {
			return &tp.Devices[i]
		}
	}
	panic(fmt.Sprintf("no device %s", name))
}

func TestExternal(t *testing.T) {
	for name, want := range map[string]bool{"isp1": true, "ext2": true, "isp": false, "r1": false, "h3": false, "ispx": false} {
		if External(name) != want {
			t.Errorf("External(%q) = %v", name, !want)
		}
	}
}
