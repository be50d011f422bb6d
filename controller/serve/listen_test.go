package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/transport"
)

// listenStream is a subscriptions/listen call of protocol 2026-07-28 made
// over HTTP as raw JSON-RPC: its SSE stream's messages, in order.
type listenStream struct {
	cancel context.CancelFunc
	msgs   chan map[string]any
	events chan string // each event's fields other than data, e.g. "event: message"
}

// listen opens a subscriptions/listen call with id "L" for uris at url.
func listen(t *testing.T, url string, uris ...string) *listenStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	list, _ := json.Marshal(uris)
	body := `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":` + string(list) +
		`},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw-host","version":"1"}}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("subscriptions/listen: status %d, Content-Type %q: %s", resp.StatusCode, ct, b)
	}
	ls := &listenStream{cancel: cancel, msgs: make(chan map[string]any, 64), events: make(chan string, 64)}
	go func() {
		defer resp.Body.Close()
		defer close(ls.msgs)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var fields []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if fields != nil {
					ls.events <- strings.Join(fields, "\n")
				}
				fields = nil
			case strings.HasPrefix(line, "data: "):
				var m map[string]any
				if json.Unmarshal([]byte(line[len("data: "):]), &m) == nil {
					ls.msgs <- m
				}
				fields = append(fields, "")
			case strings.HasPrefix(line, ":"): // a comment
			default:
				fields = append(fields, line)
			}
		}
	}()
	return ls
}

// next returns the stream's next message.
func (ls *listenStream) next(t *testing.T, what string) map[string]any {
	t.Helper()
	select {
	case m, ok := <-ls.msgs:
		if !ok {
			t.Fatalf("the listen stream ended before %s", what)
		}
		return m
	case <-time.After(testwait.Timeout(20 * time.Second)):
		t.Fatalf("no %s on the listen stream within %s", what, testwait.Timeout(20*time.Second))
	}
	return nil
}

// listenHandlers counts the goroutines running a subscriptions/listen
// handler.
func listenHandlers() int {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "(*Server).subscriptionsListen(")
}

// TestListenOverHTTP: a host of protocol 2026-07-28 over HTTP (no
// session) listens to r1's interface state through `controller serve`
// with subscriptions/listen: the stream opens with the acknowledgement,
// then a link_down in the lab arrives as notifications/resources/updated
// of the URI, tagged with the listen's id and saying what told of it:
// the device's gNMI ON_CHANGE stream, or polling when it has none. Every
// event is a plain "message" (no priming event, no event id, no other
// type). Closing the request ends the listen: its handler returns.
func TestListenOverHTTP(t *testing.T) {
	for _, tc := range []struct {
		name   string
		gnmi   bool
		poll   time.Duration
		source string
	}{
		{"on-change", true, -1, serve.SourceOnChange},
		{"poll", false, 50 * time.Millisecond, serve.SourcePoll},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := labtest.New(t, labtest.Options{GNMI: tc.gnmi})
			srv := serve.New(&controller.Controller{Fleet: quietFleetOf(t, l.Inventory())}, controller.Store{}, "test")
			srv.SetWatch(serve.WatchOptions{PollInterval: tc.poll})
			t.Cleanup(func() { _ = srv.Close() })
			hs := httptest.NewServer(srv.HTTPHandler(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{})))
			t.Cleanup(hs.Close)

			ls := listen(t, hs.URL+transport.Path, operURI)
			ack := ls.next(t, "the acknowledgement")
			params, _ := ack["params"].(map[string]any)
			meta, _ := params["_meta"].(map[string]any)
			got, _ := json.Marshal(params["notifications"])
			if ack["method"] != "notifications/subscriptions/acknowledged" || meta[mcp.MetaKeySubscriptionID] != "L" ||
				string(got) != `{"resourceSubscriptions":["`+operURI+`"]}` {
				t.Fatalf("first message %v: want the acknowledgement of %s for listen L", ack, operURI)
			}

			if err := l.Sim().InjectFault(topology.Fault{Name: "link_down", Target: "r1:GigabitEthernet0/0/0"}); err != nil {
				t.Fatal(err)
			}
			up := ls.next(t, "the update of "+operURI)
			params, _ = up["params"].(map[string]any)
			meta, _ = params["_meta"].(map[string]any)
			if up["method"] != "notifications/resources/updated" || params["uri"] != operURI ||
				meta[mcp.MetaKeySubscriptionID] != "L" || meta[serve.MetaSource] != tc.source {
				t.Fatalf("update %v: want %s from %s, tagged L", up, operURI, tc.source)
			}
			for len(ls.events) > 0 {
				if e := <-ls.events; e != "event: message\n" {
					t.Errorf("event with fields %q: want a plain message event", e)
				}
			}

			ls.cancel()
			if !testwait.For(10*time.Second, func() bool { return listenHandlers() == 0 }) {
				t.Fatalf("%d listen handlers still run after the host closed its request", listenHandlers())
			}
		})
	}
}
