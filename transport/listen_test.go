package transport_test

import (
	"context"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/transport"
)

// listenServer is a server with one subscribable resource, test://r; it
// counts the subscriptions its handlers saw end.
func listenServer(unsubscribed *atomic.Int32) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler: func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error {
			unsubscribed.Add(1)
			return nil
		},
	})
	s.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://r", Text: "r"}}}, nil
	})
	return s
}

// listenGoroutines counts the goroutines running a subscriptions/listen
// handler.
func listenGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "(*Server).subscriptionsListen(")
}

// TestStatelessListen: on 2026-07-28 a subscriptions/listen call is a
// stream that stays open: it opens with the acknowledgement (no priming
// event, no event ids, nothing but "message" events), then carries the
// updates of the resource it names, tagged with the listen's id, which the
// server sends outside any call; closing the request ends the handler
// (its subscription is dropped, no goroutine is left). In JSON response
// mode the listen is still a stream.
func TestStatelessListen(t *testing.T) {
	for _, json := range []bool{false, true} {
		t.Run(map[bool]string{false: "sse", true: "json-response"}[json], func(t *testing.T) {
			var unsubscribed atomic.Int32
			srv := listenServer(&unsubscribed)
			c := newRawClient(t, srv, transport.HTTPOptions{JSONResponse: json})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			body := `{"jsonrpc":"2.0","id":"L1","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["test://r"],"toolsListChanged":true},` + meta2026 + `}}`
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(body))
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
			defer resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
				t.Fatalf("status %d, Content-Type %q", resp.StatusCode, ct)
			}
			ev := sseEvents(resp.Body)
			ack := nextEvent(t, ev, "acknowledgement")
			if ack.name != "message" || ack.id != "" || !strings.Contains(ack.data, `"method":"notifications/subscriptions/acknowledged"`) ||
				!strings.Contains(ack.data, `"resourceSubscriptions":["test://r"]`) || !strings.Contains(ack.data, `"io.modelcontextprotocol/subscriptionId":"L1"`) {
				t.Fatalf("first event %+v: want the acknowledgement, a message event without id", ack)
			}
			if strings.Contains(ack.data, "toolsListChanged") {
				t.Errorf("acknowledgement %s honours toolsListChanged, which the server does not advertise", ack.data)
			}
			for i := range 2 {
				if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://r"}); err != nil {
					t.Fatal(err)
				}
				up := nextEvent(t, ev, "resource update")
				if up.name != "message" || up.id != "" || !strings.Contains(up.data, `"method":"notifications/resources/updated"`) ||
					!strings.Contains(up.data, `"uri":"test://r"`) || !strings.Contains(up.data, `"io.modelcontextprotocol/subscriptionId":"L1"`) {
					t.Fatalf("update %d: event %+v", i, up)
				}
			}
			cancel()
			if !testwait.For(5*time.Second, func() bool { return unsubscribed.Load() == 1 && listenGoroutines() == 0 }) {
				t.Fatalf("after the client closed the listen: %d unsubscriptions (want 1), %d listen handlers still running",
					unsubscribed.Load(), listenGoroutines())
			}
			// An update after the end goes nowhere, and the server lives on.
			if err := srv.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: "test://r"}); err != nil {
				t.Fatal(err)
			}
			if resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"test://r",`+meta2026+`}}`,
				"Mcp-Protocol-Version", "2026-07-28"); resp.StatusCode != 200 || !strings.Contains(readAll(t, resp), `"text":"r"`) {
				t.Fatalf("resources/read after the listen: status %d", resp.StatusCode)
			}
		})
	}
}

// TestStatelessListenNothingToListen: a listen for nothing the server
// honours is acknowledged (with an empty filter) and answered at once.
func TestStatelessListenNothingToListen(t *testing.T) {
	var unsubscribed atomic.Int32
	c := newRawClient(t, listenServer(&unsubscribed), transport.HTTPOptions{})
	resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"promptsListChanged":true},`+meta2026+`}}`,
		"Mcp-Protocol-Version", "2026-07-28")
	body := readAll(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(body, `"notifications/subscriptions/acknowledged"`) ||
		!strings.Contains(body, `"id":7,"result":{`) || !strings.Contains(body, `"resultType":"complete"`) {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
}

// TestStatelessListenEndsOnShutdown: a server that shuts down (Serve's
// context ends) ends an open listen gracefully: the stream's last message
// is the listen's empty result, carrying its id as the subscription id,
// and the handler returns.
func TestStatelessListenEndsOnShutdown(t *testing.T) {
	var unsubscribed atomic.Int32
	srv := listenServer(&unsubscribed)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() {
		served <- transport.Serve(ctx, ln, transport.NewHTTPServer(
			transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv }, transport.HTTPOptions{}), transport.ServerTimeouts{}))
	}()
	c := &rawClient{t: t, url: "http://" + ln.Addr().String() + transport.Path}
	resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":"L9","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["test://r"]},`+meta2026+`}}`,
		"Mcp-Protocol-Version", "2026-07-28")
	defer resp.Body.Close()
	ev := sseEvents(resp.Body)
	if ack := nextEvent(t, ev, "acknowledgement"); !strings.Contains(ack.data, "notifications/subscriptions/acknowledged") {
		t.Fatalf("first event %+v", ack)
	}
	stop()
	last := rest(t, ev)
	if len(last) != 1 || last[0].name != "message" || !strings.Contains(last[0].data, `"id":"L9","result":{`) ||
		!strings.Contains(last[0].data, `"io.modelcontextprotocol/subscriptionId":"L9"`) || !strings.Contains(last[0].data, `"resultType":"complete"`) {
		t.Fatalf("after the shutdown the stream carried %+v; want only the listen's empty result", last)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if !testwait.For(5*time.Second, func() bool { return unsubscribed.Load() == 1 && listenGoroutines() == 0 }) {
		t.Fatalf("after the shutdown: %d unsubscriptions (want 1), %d listen handlers running", unsubscribed.Load(), listenGoroutines())
	}
}
