package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// holdingProxy stands between the fleet and one device: while armed, a
// tools/call is held until its request ends (the caller cancelled it),
// which it records; other requests reach the device.
type holdingProxy struct {
	armed   atomic.Bool
	held    chan struct{} // closed when a call is first held
	ended   chan struct{} // closed when a held call's request ends
	stop    chan struct{} // closed at the end of the test
	onceH   sync.Once
	onceE   sync.Once
	forward http.Handler
}

func (p *holdingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !p.armed.Load() || !bytes.Contains(body, []byte(`"tools/call"`)) {
		p.forward.ServeHTTP(w, r)
		return
	}
	p.onceH.Do(func() { close(p.held) })
	select {
	case <-r.Context().Done():
		p.onceE.Do(func() { close(p.ended) })
	case <-p.stop:
	}
}

// taskHost speaks protocol 2026-07-28 to the controller over HTTP as raw
// JSON-RPC, declaring the Tasks extension.
type taskHost struct {
	t   *testing.T
	url string
	id  int
}

func (h *taskHost) send(method, params string) (map[string]any, *struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}) {
	h.t.Helper()
	h.id++
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"` +
		server.TasksExtensionID + `":{}}},"io.modelcontextprotocol/clientInfo":{"name":"raw-host","version":"1"}}`
	p := "{" + meta + "}"
	if params != "" {
		p = strings.TrimSuffix(params, "}") + "," + meta + "}"
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, h.id, method, p)
	req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	if err := transport.SetStandardHeaders(req.Header, []byte(body)); err != nil {
		h.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var r struct {
		Result map[string]any `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		h.t.Fatalf("%s: status %d: %v: %s", method, resp.StatusCode, err, b)
	}
	return r.Result, r.Error
}

// get returns the task id, failing the test on an error.
func (h *taskHost) get(id string) map[string]any {
	h.t.Helper()
	res, e := h.send("tasks/get", `{"taskId":"`+id+`"}`)
	if e != nil {
		h.t.Fatalf("tasks/get %s: %+v", id, e)
	}
	return res
}

// ask calls ask and returns its task's id.
func (h *taskHost) ask(intent string) string {
	h.t.Helper()
	res, e := h.send("tools/call", `{"name":"ask","arguments":{"intent":"`+intent+`"}}`)
	id, _ := res["taskId"].(string)
	if e != nil || res["resultType"] != "task" || res["status"] != "working" || id == "" {
		h.t.Fatalf("ask as a task: %+v %v", e, res)
	}
	return id
}

// TestAskAsTask: a host of protocol 2026-07-28 over HTTP that declares the
// Tasks extension gets ask as a task: server/discover advertises the
// extension, the task completes with the report; a second ask, held at a
// device, shows its progress as the task's status message, and
// tasks/cancel ends it and cancels the device call it was waiting for.
func TestAskAsTask(t *testing.T) {
	lab := labtest.New(t, labtest.Options{Faults: []string{"icmp_acl_block r3:GigabitEthernet0/0/0"}, TelemetryInterval: sim.DefaultTelemetryInterval})
	inv := withHosts(lab)
	proxy := &holdingProxy{held: make(chan struct{}), ended: make(chan struct{}), stop: make(chan struct{})}
	t.Cleanup(func() { close(proxy.stop) })
	for i, d := range inv.Devices {
		if d.Name != "r2" {
			continue
		}
		u, err := url.Parse(d.URL)
		if err != nil {
			t.Fatal(err)
		}
		rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
		rp.FlushInterval = -1
		proxy.forward = rp
		ps := httptest.NewServer(proxy)
		t.Cleanup(ps.Close)
		inv.Devices[i].URL = ps.URL + u.Path
	}
	fleet, err := client.New(inv, client.Options{CallTimeout: 10 * time.Minute}) // only the cancel ends the held call
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fleet.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := fleet.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	topo := lab.Topology()
	srv := serve.New(&controller.Controller{Fleet: fleet, Hosts: controller.HostsOf(topo), Domains: controller.DomainsOf(topo)}, controller.Store{Dir: t.TempDir()}, "test")
	hs := httptest.NewServer(srv.HTTPHandler(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{})))
	t.Cleanup(hs.Close)
	host := &taskHost{t: t, url: hs.URL + transport.Path}

	d, e := host.send("server/discover", "")
	caps, _ := d["capabilities"].(map[string]any)
	exts, _ := caps["extensions"].(map[string]any)
	if _, ok := exts[server.TasksExtensionID]; e != nil || !ok {
		t.Fatalf("server/discover: %+v %v, want the Tasks extension", e, d)
	}

	id := host.ask("what is wrong with the network?")
	var g map[string]any
	testwait.Until(t, 2*time.Minute, "ask task completes", func() (bool, string) {
		g = host.get(id)
		return g["status"] != "working", fmt.Sprint(g)
	})
	res, _ := g["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if g["status"] != "completed" || sc["is_anomaly"] != true || !strings.Contains(fmt.Sprint(sc["root_cause_name"]), "icmp_acl_block") {
		t.Fatalf("ask task: %v, want completed with the report", g)
	}

	proxy.armed.Store(true)
	id = host.ask("what is wrong with the network?")
	testwait.Until(t, time.Minute, "the ask reaches r2 and reports progress", func() (bool, string) {
		g = host.get(id)
		select {
		case <-proxy.held:
			return g["status"] == "working" && g["statusMessage"] != nil, fmt.Sprint(g)
		default:
			return false, "no call reached r2: " + fmt.Sprint(g)
		}
	})
	if msg, _ := g["statusMessage"].(string); msg == "" {
		t.Errorf("working ask task without progress: %v", g)
	}
	if _, e := host.send("tasks/cancel", `{"taskId":"`+id+`"}`); e != nil {
		t.Fatalf("tasks/cancel: %+v", e)
	}
	if g := host.get(id); g["status"] != "cancelled" {
		t.Fatalf("after tasks/cancel: %v", g)
	}
	testwait.Until(t, 30*time.Second, "the cancelled ask's call to r2 ends", func() (bool, string) {
		select {
		case <-proxy.ended:
			return true, ""
		default:
			return false, "the call to r2 is still held"
		}
	})
	if g := host.get(id); g["status"] != "cancelled" {
		t.Errorf("cancelled task later %v", g)
	}
}
