package agent

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/agent/discover"
	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/device"
	_ "github.com/netmcp/netmcp/device/gnmi" // domainOpts.gnmi
	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
	"github.com/netmcp/netmcp/device/gnmi/gnmitest"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/server"
)

// labDisc is an agent's discoverer in the test lab: the device's own
// simulated LLDP (discover.LLDP through network.yang.get), unless a test
// overrides the list with set (to forge what a neighbour advertises).
type labDisc struct {
	lldp discover.Discoverer
	mu   sync.Mutex
	ns   []discover.Neighbor // the override, when set
	over bool
}

func (m *labDisc) Neighbors(ctx context.Context) ([]discover.Neighbor, error) {
	m.mu.Lock()
	if m.over {
		defer m.mu.Unlock()
		return append([]discover.Neighbor(nil), m.ns...), nil
	}
	m.mu.Unlock()
	return m.lldp.Neighbors(ctx)
}

func (m *labDisc) set(ns []discover.Neighbor) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ns, m.over = ns, true
}

// labTLVs are the custom TLVs a device of the topology advertises.
func labTLVs(t testing.TB, topo topology.Topology, name string) []device.LLDPTLV {
	var out []device.LLDPTLV
	for _, dv := range topo.Devices {
		if dv.Name != name || dv.LLDP == nil {
			continue
		}
		for _, c := range dv.LLDP.CustomTLVs {
			p, err := netsim.ParseLLDPTLV(c)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, device.LLDPTLV{OUI: p.OUI, Subtype: p.Subtype, Value: p.Value})
		}
	}
	return out
}

// testDomain is the simulated lab with a collaboration agent on each
// router, each on its own loopback port over mTLS.
type testDomain struct {
	t      testing.TB
	lab    *sim.Lab
	ca     *pki.CA
	agents map[string]*Agent
	disc   map[string]*labDisc
	lns    map[string]net.Listener
	cancel map[string]context.CancelFunc
	// auditPath is each agent's audit log, with domainOpts.audit.
	auditPath map[string]string
}

type domainOpts struct {
	offer       map[string][]string // per device (default DefaultOffer)
	topo        *topology.Topology
	callTimeout time.Duration
	audit       bool // each agent writes an audit log (testDomain.auditPath)
	gate        map[string]*ControllerGate
	// realtime paces the lab's diagnostics like the real tools (10
	// probes take 2 s), for tests that act while probes run.
	realtime bool
	// writer gives each agent a write session to its device (its
	// approval gate the server's default: every write needs approval).
	writer bool
	// certWindow, per device, is its certificate's validity window
	// (default: from a minute ago for an hour).
	certWindow map[string][2]time.Time
	// gnmi serves these routers over gNMI and gives their agents the
	// gnmi:// driver as their device, as `netmcp agent run --device
	// gnmi://...` does.
	gnmi map[string]bool
}

func newDomain(t testing.TB, o domainOpts) *testDomain {
	t.Helper()
	topo := sim.DefaultTopology()
	if o.topo != nil {
		topo = *o.topo
	}
	lab, err := sim.NewLab(topo, sim.LabOptions{Realtime: o.realtime})
	if err != nil {
		t.Fatal(err)
	}
	// The CA is valid from a day ago, so that certificates of the past
	// (domainOpts.certWindow) chain to it.
	ca, err := pki.NewCAWindow("test-ca", time.Now().Add(-24*time.Hour), time.Now().Add(pki.DefaultCATTL))
	if err != nil {
		t.Fatal(err)
	}
	d := &testDomain{t: t, lab: lab, ca: ca, agents: map[string]*Agent{}, disc: map[string]*labDisc{},
		lns: map[string]net.Listener{}, cancel: map[string]context.CancelFunc{}}
	t.Cleanup(func() {
		for _, c := range d.cancel {
			c()
		}
		for _, a := range d.agents {
			a.Close()
		}
		lab.Close()
	})
	for _, name := range lab.Routers() {
		d.agents[name] = d.newAgent(name, o)
		drv, _ := lab.Device(name)
		if err := d.agents[name].AdvertiseLLDP(context.Background(), drv, labTLVs(t, topo, name)); err != nil {
			t.Fatal(err)
		}
	}
	for name := range d.agents {
		d.serve(name)
	}
	return d
}

// newAgent builds the agent of router name: its device server in process,
// a certificate, a signer, a listener.
func (d *testDomain) newAgent(name string, o domainOpts) *Agent {
	t := d.t
	var drv device.Driver
	drv, err := d.lab.Device(name)
	if err != nil {
		t.Fatal(err)
	}
	if o.gnmi[name] {
		tg := gnmitest.Start(t, drv, gnmiserver.Options{})
		if drv, err = device.Open(context.Background(), tg.URL(), device.Options{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { drv.Close() })
	}
	srv, err := server.New(drv, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel[name+"/dev"] = cancel
	updates := NewLocalUpdates()
	cs, err := LocalSession(ctx, srv.MCP(), updates)
	if err != nil {
		t.Fatal(err)
	}
	var writer Writer
	if o.writer {
		wct, wst := mcp.NewInMemoryTransports()
		go srv.MCP().Run(ctx, wst)
		ws, err := mcp.NewClient(&mcp.Implementation{Name: "agent-writer", Version: "1"}, nil).Connect(ctx, wct, nil)
		if err != nil {
			t.Fatal(err)
		}
		writer = ws
	}
	certPEM, keyPEM, err := d.ca.Issue(name, pki.KindServer, time.Hour)
	if w, ok := o.certWindow[name]; ok {
		certPEM, keyPEM, err = d.ca.IssueWindow(name, pki.KindServer, w[0], w[1])
	}
	if err != nil {
		t.Fatal(err)
	}
	signer, err := sign.OpenSigner(t.TempDir(), name)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d.lns[name] = ln
	ms := &labDisc{lldp: discover.LLDP{Get: YangGetter(cs)}}
	d.disc[name] = ms
	var alog *audit.Log
	if o.audit {
		if d.auditPath == nil {
			d.auditPath = map[string]string{}
		}
		d.auditPath[name] = audit.PathIn(t.TempDir())
		if alog, err = audit.Open(d.auditPath[name], audit.Options{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { alog.Close() })
	}
	var gate interface{ Allow(context.Context) error }
	if g := o.gate[name]; g != nil {
		gate = g
	}
	a, err := New(ctx, Config{LocalUpdates: updates, Writer: writer, Audit: alog, Gate: gate, CertPEM: certPEM, KeyPEM: keyPEM, CAPEM: d.ca.CertPEM, Local: cs, Signer: signer,
		Offer: o.offer[name], Discoverer: ms, Port: uint16(ln.Addr().(*net.TCPAddr).Port),
		Resolve: func(discover.Neighbor) string { return "127.0.0.1" }, CallTimeout: o.callTimeout})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (d *testDomain) serve(name string) {
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel[name] = cancel
	go d.agents[name].Serve(ctx, d.lns[name])
}

// operator opens an operator's mTLS session to the agent of name.
func (d *testDomain) operator(name string) *mcp.ClientSession { return d.operatorWith(name, nil) }

// operatorWith opens an operator's mTLS session to the agent of name with
// the client options opts.
func (d *testDomain) operatorWith(name string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t := d.t
	certPEM, keyPEM, err := d.ca.Issue("alice", pki.KindClient, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pki.ClientTLSConfig(d.ca.CertPEM, certPEM, keyPEM, name)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "op", Version: "1"}, opts).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: "https://" + d.lns[name].Addr().String() + "/mcp", HTTPClient: httpClient(cfg)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
