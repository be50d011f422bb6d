package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
	"github.com/netmcp/netmcp/transport"
)

// statelessListen opens a subscriptions/listen call (id "L") of protocol
// 2026-07-28 for uris at url and returns the JSON-RPC messages of its
// stream; cancel closes the request.
func statelessListen(t *testing.T, url string, uris ...string) (msgs <-chan map[string]any, cancel context.CancelFunc, status int, body string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	list, _ := json.Marshal(uris)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(
		`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":`+string(list)+`},`+statelessMeta+`}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, cancel, resp.StatusCode, string(b)
	}
	ch := make(chan map[string]any, 16)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(data), &m) == nil {
					ch <- m
				}
			}
		}
	}()
	return ch, cancel, resp.StatusCode, ""
}

func nextMsg(t *testing.T, ch <-chan map[string]any, what string) map[string]any {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatalf("the stream ended before %s", what)
		}
		return m
	case <-time.After(testwait.Timeout(10 * time.Second)):
		t.Fatalf("no %s within %s", what, testwait.Timeout(10*time.Second))
	}
	return nil
}

// TestStatelessListen: on protocol 2026-07-28 over HTTP, where there is no
// session (hence no resources/subscribe nor GET stream), a client listens
// to a device's interface and syslog with subscriptions/listen: the
// device's events arrive on the listen's stream as
// notifications/resources/updated, tagged with the listen's id and with
// the draft's subscriptionId (and the syslog line). A URI that cannot be
// subscribed to is refused with -32602 naming those that can.
func TestStatelessListen(t *testing.T) {
	dev := servertest.New()
	s, err := server.New(dev, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ts := httptest.NewServer(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP() }, transport.HTTPOptions{}))
	t.Cleanup(ts.Close)
	url := ts.URL + transport.Path

	const ifURI, logURI = "network:///interface/GigabitEthernet0/0/1", "network:///log/syslog/last10"
	msgs, cancel, status, body := statelessListen(t, url, ifURI, logURI)
	if msgs == nil {
		t.Fatalf("subscriptions/listen: status %d: %s", status, body)
	}
	ack := nextMsg(t, msgs, "the acknowledgement")
	if ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message %v, want the acknowledgement", ack)
	}
	dev.Emit(device.Event{Kind: device.EventInterface, Name: "GigabitEthernet0/0/1"})
	up := nextMsg(t, msgs, "the interface's update")
	p, _ := up["params"].(map[string]any)
	meta, _ := p["_meta"].(map[string]any)
	if up["method"] != "notifications/resources/updated" || p["uri"] != ifURI || meta[mcp.MetaKeySubscriptionID] != "L" ||
		meta[transport.MetaSubscriptionID] != transport.SubscriptionID(ifURI) {
		t.Fatalf("update %v: want %s tagged with the listen's and the draft's subscription ids", up, ifURI)
	}
	line := "%LINEPROTO-5-UPDOWN: Line protocol on Interface GigabitEthernet0/0/1, changed state to down"
	dev.Emit(device.Event{Kind: device.EventSyslog, Log: &device.LogEntry{Text: line}})
	up = nextMsg(t, msgs, "the syslog's update")
	p, _ = up["params"].(map[string]any)
	meta, _ = p["_meta"].(map[string]any)
	if p["uri"] != logURI || meta["text"] != line || meta[mcp.MetaKeySubscriptionID] != "L" {
		t.Fatalf("update %v: want %s with the line", up, logURI)
	}
	cancel()

	_, _, status, body = statelessListen(t, url, "network:///file/running-config")
	if status != http.StatusOK || !strings.Contains(body, `"code":-32602`) || !strings.Contains(body, "cannot be subscribed to") {
		t.Errorf("listen to a file: status %d: %s; want -32602 saying it cannot be subscribed to", status, body)
	}
}
