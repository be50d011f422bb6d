package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// roundRobin is a reverse proxy for the test: each request goes to the
// next backend in turn; a backend that refuses the connection (its process
// is gone) is skipped. A request that reached a backend is never sent
// again: when its backend dies on it, the client gets 502 and retries, as
// behind a real load balancer.
type roundRobin struct {
	backends []string
	mu       sync.Mutex
	next     int
	served   []int // the backend of each request answered, in order
}

func (p *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	start := p.next
	p.next = (p.next + 1) % len(p.backends)
	p.mu.Unlock()
	for i := range p.backends {
		n := (start + i) % len(p.backends)
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, p.backends[n], bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) {
				continue // not sent: try the next backend
			}
			http.Error(w, "backend: "+err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			http.Error(w, "backend: "+err.Error(), http.StatusBadGateway)
			return
		}
		p.mu.Lock()
		p.served = append(p.served, n)
		p.mu.Unlock()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(b)
		return
	}
	http.Error(w, "no backend", http.StatusBadGateway)
}

// lastServed is the backend that answered the last request.
func (p *roundRobin) lastServed() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.served[len(p.served)-1]
}

// rpc2026 posts one 2026-07-28 request (no session) and returns its
// response, or the HTTP status of a proxy error.
func rpc2026(t *testing.T, url, method, params, meta string) (rawRPC, int) {
	t.Helper()
	b, status := post2026(t, url, method, params, "{}", meta)
	if status == http.StatusBadGateway {
		return rawRPC{}, status
	}
	var r rawRPC
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: status %d: %v: %s", method, status, err, b)
	}
	return r, status
}

// post2026 posts one JSON-RPC request of protocol 2026-07-28 (no session)
// from a host declaring caps (a JSON object), with meta (members of _meta,
// comma-separated, or "") besides the protocol's, and returns the
// response message (an event stream's last event with an id) and the
// HTTP status.
func post2026(t *testing.T, url, method, params, caps, meta string) ([]byte, int) {
	t.Helper()
	m := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `,` +
		`"io.modelcontextprotocol/clientInfo":{"name":"netmcp-test","version":"1"}`
	if meta != "" {
		m += "," + meta
	}
	p := strings.TrimSuffix(strings.TrimSpace(params), "}") + `,"_meta":{` + m + `}}`
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + p + `}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	if err := transport.SetStandardHeaders(req.Header, []byte(body)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(b), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id"`) {
				b = []byte(d)
			}
		}
	}
	return b, resp.StatusCode
}

// rawRPC is one JSON-RPC response.
type rawRPC struct {
	Result struct {
		Structured map[string]any `json:"structuredContent"`
		IsError    bool           `json:"isError"`
		Meta       map[string]any `json:"_meta"`
		Contents   []struct {
			Text string `json:"text"`
		} `json:"contents"`
	} `json:"result"`
	Error *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

// tool calls a tool through url and fails the test on any error.
func tool2026(t *testing.T, url, name, args, meta string) rawRPC {
	t.Helper()
	r, status := rpc2026(t, url, "tools/call", `{"name":"`+name+`","arguments":`+args+`}`, meta)
	if status != http.StatusOK || r.Error != nil || r.Result.IsError {
		t.Fatalf("%s %s: status %d, error %+v, result %+v", name, args, status, r.Error, r.Result)
	}
	return r
}

// TestServeSharedStateDir: two `netmcp serve` processes serve one state
// directory at once behind a round-robin proxy, spoken to over protocol
// 2026-07-28 (no session). A candidate started through one is committed
// through the other, and the first sees the commit at its next request.
// A commit sent with an idempotency key reaches a process that is
// SIGKILLed while it applies it (the simulated device takes 3 s to
// commit); the client's retry with the same key, through the proxy to
// the survivor, commits it once, and a further retry is answered from
// the record. The commit history shows each change committed once.
func TestServeSharedStateDir(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(pol, []byte("approval: {default: never}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--device", "sim://r1?commitDelay=3s", "--state-dir", dir, "--local-role", "operator", "--policy", pol}
	a, urlA := startHTTPServe(t, args...)
	_, urlB := startHTTPServe(t, args...)
	rr := &roundRobin{backends: []string{urlA, urlB}}
	proxy := httptest.NewServer(rr)
	t.Cleanup(proxy.Close)
	url := proxy.URL + "/mcp"

	edit := func(desc string) string {
		return fmt.Sprintf(`{"edit":[{"path":"%s","value":{"config":{"name":"LoopBack100","type":"iana-if-type:softwareLoopback","description":%q}}}]}`, lo100, desc)
	}
	r := tool2026(t, url, netproto.ToolYangEdit, edit("one"), "")
	handle, _ := r.Result.Structured["handle"].(string)
	if handle == "" || rr.lastServed() != 0 {
		t.Fatalf("edit through A (served by %d): %+v", rr.lastServed(), r.Result)
	}
	r = tool2026(t, url, netproto.ToolCommit, `{"handle":"`+handle+`","comment":"first"}`, "")
	if r.Result.Structured["status"] != "committed" || rr.lastServed() != 1 {
		t.Fatalf("commit through B (served by %d): %+v", rr.lastServed(), r.Result)
	}
	getDesc := func() string {
		r := tool2026(t, url, netproto.ToolYangGet, `{"path":"`+lo100+`/config/description","datastore":"running"}`, "")
		return fmt.Sprint(r.Result.Structured["data"])
	}
	if d := getDesc(); d != "one" || rr.lastServed() != 0 {
		t.Fatalf("running description through A (served by %d) after B's commit: %q", rr.lastServed(), d)
	}

	// The second change: edited through B, committed through A, which dies.
	tool2026(t, url, netproto.ToolYangEdit, strings.TrimSuffix(edit("two"), "}")+`,"handle":"`+handle+`"}`, "")
	if rr.lastServed() != 1 {
		t.Fatalf("second edit served by %d", rr.lastServed())
	}
	commit := `{"handle":"` + handle + `","comment":"second"}`
	key := `"` + server.MetaIdempotencyKey + `":"shared-commit-2"`
	type outcome struct {
		r      rawRPC
		status int
	}
	first := make(chan outcome, 1)
	go func() {
		r, status := rpc2026(t, url, "tools/call", `{"name":"`+netproto.ToolCommit+`","arguments":`+commit+`}`, key)
		first <- outcome{r, status}
	}()
	testwait.Until(t, 20*time.Second, "the keyed commit is running on A", func() (bool, string) {
		files, _ := filepath.Glob(filepath.Join(dir, "idempotency", "*.json"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); strings.Contains(string(b), `"running":true`) {
				return true, ""
			}
		}
		return false, fmt.Sprint(files)
	})
	_ = a.Process.Kill()
	_ = a.Wait()
	if o := <-first; o.status != http.StatusBadGateway {
		t.Fatalf("the commit whose server was killed answered: status %d %+v", o.status, o.r)
	}
	retry := func() rawRPC {
		r, status := rpc2026(t, url, "tools/call", `{"name":"`+netproto.ToolCommit+`","arguments":`+commit+`}`, key)
		if status != http.StatusOK || r.Error != nil || r.Result.IsError {
			t.Fatalf("retried commit: status %d, error %+v, result %+v", status, r.Error, r.Result)
		}
		return r
	}
	second := retry()
	if second.Result.Structured["status"] != "committed" || rr.lastServed() != 1 {
		t.Fatalf("retried commit (served by %d): %+v", rr.lastServed(), second.Result)
	}
	third := retry()
	if third.Result.Structured["commit-id"] != second.Result.Structured["commit-id"] || third.Result.Meta[server.MetaIdempotentReplay] != true {
		t.Fatalf("commit retried again: %+v, want %v replayed", third.Result, second.Result.Structured["commit-id"])
	}
	if d := getDesc(); d != "two" {
		t.Fatalf("running description after the retried commit: %q", d)
	}
	hist, status := rpc2026(t, url, "resources/read", `{"uri":"`+server.URICommitHistory+`"}`, "")
	if status != http.StatusOK || hist.Error != nil || len(hist.Result.Contents) == 0 {
		t.Fatalf("history: status %d %+v", status, hist.Error)
	}
	var h struct{ Commits []struct{ Comment string } }
	_ = json.Unmarshal([]byte(hist.Result.Contents[0].Text), &h)
	count := map[string]int{}
	for _, c := range h.Commits {
		count[c.Comment]++
	}
	if len(h.Commits) != 2 || count["first"] != 1 || count["second"] != 1 {
		t.Fatalf("history %+v: want one commit \"first\" and one \"second\"", h.Commits)
	}
}
