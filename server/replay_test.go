package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
	"github.com/netmcp/netmcp/transport"
)

// wire is a raw JSON-RPC session with the server stack over pipes, as a
// controller would speak it on stdio.
type wire struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
	ch  chan map[string]any
}

func newWire(t *testing.T, drv device.Driver, opts server.Options) (*wire, chan error) {
	s := newServer(t, drv, opts)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- transport.ServeIO(context.Background(), s.MCP(), inR, outW); outW.Close() }()
	w := &wire{t: t, in: inW, out: bufio.NewReader(outR), ch: make(chan map[string]any, 100)}
	go func() {
		for {
			line, err := w.out.ReadString('\n')
			if err != nil {
				close(w.ch)
				return
			}
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil {
				w.ch <- m
			}
		}
	}()
	t.Cleanup(func() { inW.Close(); s.Close() })
	return w, done
}

func (w *wire) send(msg string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, strings.Join(strings.Fields(msg), " ")+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

// next returns the next message matching f, skipping others.
func (w *wire) next(f func(map[string]any) bool) map[string]any {
	w.t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case m, ok := <-w.ch:
			if !ok {
				w.t.Fatal("server closed the stream")
			}
			if f(m) {
				return m
			}
		case <-timeout:
			w.t.Fatal("timed out waiting for a message")
		}
	}
}

func (w *wire) response(id float64) map[string]any {
	w.t.Helper()
	return w.next(func(m map[string]any) bool { return m["id"] == id })
}

// get walks a decoded JSON value: get(m, "result", "capabilities", "network").
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestReplaySection8 replays MCP-NET section 8 message by message and
// checks every field shown there; where MCP wins, the MCP shape is
// checked instead (docs/mcp-mapping.md).
func TestReplaySection8(t *testing.T) {
	dev := servertest.New()
	w, done := newWire(t, dev, server.Options{Name: "IOS-XR-MCP"})

	// 8.1 initialize.
	w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",
	  "capabilities":{"prompts":{"listChanged":true},"resources":{"subscribe":true},"tools":{"listChanged":true}},
	  "clientInfo":{"name":"ACME-NetCtrl","version":"4.7.0"}}}`)
	r := w.response(1)
	checks := map[string]string{
		"protocolVersion":                          `"2025-06-18"`,
		"capabilities.prompts":                     `{"listChanged":false}`,
		"capabilities.resources":                   `{"subscribe":true}`,
		"capabilities.tools":                       `{"listChanged":false}`,
		"capabilities.network":                     `{"cliDialect":"huawei-vrp","configDatastore":["running","candidate","operational"],"maxBulkEdit":1000,"notificationStream":["syslog","netconf-stream"],"rollbackTimeout":300,"supportsRollback":true,"yangModules":["ietf-interfaces","openconfig-interfaces"]}`,
		"capabilities.extensions.ietf.org/mcp-net": "", // compared with network below
		"serverInfo.name":                          `"IOS-XR-MCP"`,
		"serverInfo.version":                       `"7.5.3"`,
	}
	res := r["result"].(map[string]any)
	for k, want := range checks {
		var v any = res
		parts := strings.SplitN(k, ".", 3)
		if strings.HasPrefix(k, "capabilities.extensions.") {
			v = get(res, "capabilities", "extensions", "ietf.org/mcp-net")
			want = js(get(res, "capabilities", "network"))
		} else {
			for _, p := range parts {
				v = get(v, p)
			}
		}
		if js(v) != want {
			t.Errorf("8.1 %s = %s, want %s", k, js(v), want)
		}
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// 8.2 read interface status. MCP wins: contents[0].text holds the draft's "data".
	w.send(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"network:///interface/TenGigE0/0/0/0"}}`)
	r = w.response(2)
	c := get(r, "result", "contents", 0)
	if get(c, "uri") != "network:///interface/TenGigE0/0/0/0" || get(c, "mimeType") != "application/yang-data+json" {
		t.Errorf("8.2 contents = %s", js(c))
	}
	var data any
	if err := json.Unmarshal([]byte(get(c, "text").(string)), &data); err != nil {
		t.Fatalf("8.2 text is not JSON: %v", err)
	}
	intf := get(data, "openconfig-interfaces:interface")
	if get(intf, "name") != "TenGigE0/0/0/0" || get(intf, "state", "admin-status") != "UP" || get(intf, "state", "oper-status") != "DOWN" {
		t.Errorf("8.2 data = %s", js(data))
	}

	// 8.3 prompt, then the embedded tool call. MCP wins: content is a
	// TextContent object and the tool result sits in structuredContent.
	w.send(`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"network.troubleshoot.ping-fail",
	  "arguments":{"src":"192.168.1.1","dst":"10.0.0.5","vrf":"mgmt"}}}`)
	r = w.response(3)
	if d := get(r, "result", "description"); d != "Step-by-step ping failure diagnosis" {
		t.Errorf("8.3 description %v", d)
	}
	msg := get(r, "result", "messages", 0)
	wantText := "## Ping failure: 192.168.1.1 → 10.0.0.5 (VRF mgmt)\n\n1. Check local ARP:\n   `network.cli.exec {\"cmd\":\"show ip arp vrf mgmt 10.0.0.5\"}`"
	if get(msg, "role") != "assistant" || get(msg, "content", "type") != "text" || get(msg, "content", "text") != wantText {
		t.Errorf("8.3 message = %s", js(msg))
	}
	if tc := js(get(r, "result", "_meta", "toolCalls")); tc != `[{"arguments":{"cmd":"show ip arp vrf mgmt 10.0.0.5"},"tool":"network.cli.exec"}]` {
		t.Errorf("8.3 toolCalls = %s", tc)
	}
	w.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"network.cli.exec","arguments":{"cmd":"show ip arp vrf mgmt 10.0.0.5"}}}`)
	r = w.response(4)
	if got := get(r, "result", "structuredContent", "stdout"); got != dev.ARP || !strings.Contains(dev.ARP, "10.0.0.5  ") && !strings.Contains(got.(string), "00:50:56:ab:cd:ef") {
		t.Errorf("8.3 stdout = %v", got)
	}

	// 8.4 YANG edit + confirmed commit + confirm.
	w.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"network.yang.edit","arguments":{"target":"candidate",
	  "edit":[{"path":"/openconfig-interfaces:interfaces/interface[name='Loopback100']","value":{"config":{"name":"Loopback100","type":"iana-if-type:softwareLoopback"},
	  "subinterfaces":{"subinterface":[{"index":0,"config":{"index":0,"ipv4":{"addresses":{"address":[{"ip":"100.100.100.100","config":{"ip":"100.100.100.100","prefix-length":32}}]}}}}]}}}]}}}`)
	r = w.response(5)
	if id, _ := get(r, "result", "structuredContent", "commit-id").(string); len(id) < len("2025-10-19-03-27-00") {
		t.Errorf("8.4 edit result %s", js(r))
	}
	w.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"network.commit","arguments":{"confirmed":120}}}`)
	r = w.response(6)
	if sc := get(r, "result", "structuredContent"); get(sc, "status") != "committed" || get(sc, "rollbackTimeout") != float64(120) {
		t.Errorf("8.4 commit = %s", js(sc))
	}
	w.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"network.commit","arguments":{"confirm":true}}}`)
	r = w.response(7)
	if sc := get(r, "result", "structuredContent"); js(sc) != `{"status":"confirmed"}` {
		t.Errorf("8.4 confirm = %s", js(sc))
	}

	// 8.5 subscribe to syslog; the server pushes notifications/resources/updated.
	w.send(`{"jsonrpc":"2.0","id":8,"method":"resources/subscribe","params":{"uri":"network:///log/syslog/last200"}}`)
	r = w.response(8)
	subID, _ := get(r, "result", "subscriptionId").(string)
	if uri, ok := transport.SubscriptionURI(subID); !ok || uri != "network:///log/syslog/last200" {
		t.Fatalf("8.5 subscriptionId %q", subID)
	}
	line := "Oct 19 03:29:01.123: %LINEPROTO-5-UPDOWN: Line protocol on Interface Loopback100, changed state to up"
	dev.Emit(device.Event{Kind: device.EventSyslog, Log: &device.LogEntry{Text: line, Mnemonic: "LINEPROTO-5-UPDOWN"}})
	n := w.next(func(m map[string]any) bool { return m["method"] == "notifications/resources/updated" })
	if get(n, "params", "uri") != "network:///log/syslog/last200" || get(n, "params", "_meta", "ietf.org/mcp-net/subscriptionId") != subID ||
		get(n, "params", "_meta", "text") != line {
		t.Errorf("8.5 notification = %s", js(n))
	}
	w.send(`{"jsonrpc":"2.0","id":81,"method":"resources/read","params":{"uri":"network:///log/syslog/last200"}}`)
	r = w.response(81)
	if txt, _ := get(r, "result", "contents", 0, "text").(string); !strings.HasSuffix(txt, line+"\n") || get(r, "result", "contents", 0, "mimeType") != "text/plain; charset=utf-8" {
		t.Errorf("8.5 re-read = %s", js(r))
	}

	// 8.6 unsubscribe by the draft's subscriptionId, then close.
	w.send(`{"jsonrpc":"2.0","id":9,"method":"resources/unsubscribe","params":{"subscriptionId":"` + subID + `"}}`)
	if r = w.response(9); js(r["result"]) != `{}` {
		t.Errorf("8.6 unsubscribe = %s", js(r))
	}
	w.send(`{"jsonrpc":"2.0","id":10,"method":"close"}`)
	if r = w.response(10); js(r["result"]) != `{}` {
		t.Errorf("8.6 close = %s", js(r))
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("session ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("close did not end the session")
	}
}
