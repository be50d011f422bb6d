package transport_test

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

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	server.Install(s, netproto.NetworkCapability{CLIDialect: "cisco-iosxr", YangModules: []string{"openconfig-interfaces"},
		ConfigDatastore: []string{"running"}, NotificationStream: []string{"syslog"}, MaxBulkEdit: 10})
	return s
}

const initReq = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

func TestServeIOInitialize(t *testing.T) {
	pr, pw := io.Pipe()
	or, ow := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- transport.ServeIO(context.Background(), newServer(), pr, ow) }()
	go func() { io.WriteString(pw, initReq+"\n") }()
	line, err := bufio.NewReader(or).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Result struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resp.Result.Capabilities["network"]), `"cliDialect":"cisco-iosxr"`) {
		t.Fatalf("no network capability in %s", line)
	}
	pw.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeIO: %v", err)
		}
	case <-time.After(testwait.Timeout(5 * time.Second)):
		t.Fatal("ServeIO did not end after EOF")
	}
}

func TestHTTPHandler(t *testing.T) {
	srv := newServer()
	ts := httptest.NewServer(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		transport.HTTPOptions{AllowedHosts: []string{"router.lab"}}))
	defer ts.Close()
	post := func(path, host, origin, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	tests := []struct {
		name, path, host, origin string
		status                   int
	}{
		{"loopback", "/mcp", "", "", 200},
		{"localhost name", "/mcp", "localhost:8080", "", 200},
		{"allowed host", "/mcp", "router.lab:443", "", 200},
		{"rebinding host", "/mcp", "evil.example:80", "", 403},
		{"loopback origin", "/mcp", "", "http://127.0.0.1:3000", 200},
		{"foreign origin", "/mcp", "", "https://evil.example", 403},
		{"other path", "/", "", "", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(tt.path, tt.host, tt.origin, initReq)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.status == 200 {
				if resp.Header.Get("Mcp-Session-Id") == "" {
					t.Error("no Mcp-Session-Id: the handler is not stateful")
				}
				if !strings.Contains(string(body), `"network":{`) {
					t.Errorf("initialize result lacks capabilities.network: %s", body)
				}
			}
		})
	}
}

func TestHTTPClientSession(t *testing.T) {
	srv := newServer()
	ts := httptest.NewServer(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv }, transport.HTTPOptions{}))
	defer ts.Close()
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	ctx := context.Background()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + transport.Path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ext := cs.InitializeResult().Capabilities.Extensions[netproto.ExtensionID]
	m, ok := ext.(map[string]any)
	if !ok || m["cliDialect"] != "cisco-iosxr" || m["maxBulkEdit"] != float64(10) {
		t.Fatalf("extension %s = %#v", netproto.ExtensionID, ext)
	}
}
