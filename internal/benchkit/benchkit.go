// Package benchkit measures MCP servers from outside: it starts a server
// as a child process, speaks JSON-RPC to it over stdio or Streamable HTTP
// with a minimal client of its own (the same for every server measured, so
// the client's cost is the same in every comparison), times tools/call
// round trips and reads the child's resident memory from /proc.
//
// It is shared by `netmcp bench` and the server package's benchmarks.
package benchkit

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/internal/lazyre"
	"github.com/netmcp/netmcp/transport"
)

// ProtocolVersion is the MCP version the clients of this package
// negotiate unless Options.Protocol names another.
const ProtocolVersion = "2025-06-18"

// PerRequestVersion is the first MCP version without sessions (SEP-2575):
// a client of it or a later one sends no initialize, and every request
// carries the version, the client's capabilities and its identity in
// _meta.
const PerRequestVersion = "2026-07-28"

// _meta keys of a per-request protocol's requests.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
)

// Client is one MCP session with a server child process.
type Client interface {
	// CallTool sends one tools/call and waits for its answer. It returns
	// an error if the call failed at any level: transport, JSON-RPC error,
	// or a tool result with isError set.
	CallTool(ctx context.Context, name string, args any) error
	// Call is CallTool with meta added to the request's _meta; it returns
	// the result's structuredContent.
	Call(ctx context.Context, name string, args any, meta map[string]any) (structured json.RawMessage, err error)
	// Pid is the server process's id (for RSS).
	Pid() int
	// Close ends the session and the server process.
	Close() error
}

// Options configure a server child process.
type Options struct {
	// Argv is the program and its arguments.
	Argv []string
	// Env is added to the environment of the child.
	Env []string
	// Stderr receives the child's stderr (after the listen address, for
	// HTTP); nil discards it.
	Stderr io.Writer
	// StartTimeout bounds the start and the initialize handshake; zero
	// means 30 s.
	StartTimeout time.Duration
	// Protocol is the MCP version the client speaks ("": ProtocolVersion).
	// From PerRequestVersion on (over HTTP only) there is no initialize
	// nor session: the client checks with server/discover that the server
	// speaks it, then sends every call with the version, its capabilities
	// and its identity in _meta and the Mcp-Protocol-Version header.
	Protocol string
}

func (o Options) protocol() string { return cmp.Or(o.Protocol, ProtocolVersion) }

// perRequest reports whether the client speaks a per-request protocol.
func (o Options) perRequest() bool { return o.protocol() >= PerRequestVersion }

func (o Options) command() (*exec.Cmd, error) {
	if len(o.Argv) == 0 {
		return nil, errors.New("benchkit: no program to start")
	}
	cmd := exec.Command(o.Argv[0], o.Argv[1:]...)
	cmd.Env = append(os.Environ(), o.Env...)
	return cmd, nil
}

func (o Options) startTimeout() time.Duration {
	if o.StartTimeout > 0 {
		return o.StartTimeout
	}
	return 30 * time.Second
}

// initialize returns the initialize request of both clients for version.
func initialize(version string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"netmcp-bench","version":"1"}}}`)
}

// clientInfo is the client's identity.
var clientInfo = map[string]any{"name": "netmcp-bench", "version": "1"}

const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// response is the part of a JSON-RPC message the clients look at.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError           bool            `json:"isError"`
		Content           json.RawMessage `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		SupportedVersions []string        `json:"supportedVersions"` // of server/discover
	} `json:"result"`
	Error *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// check returns the failure that msg reports, if any.
func (r *response) check() error {
	switch {
	case r.Error != nil:
		return fmt.Errorf("JSON-RPC error %d: %s %s", r.Error.Code, r.Error.Message, r.Error.Data)
	case r.Result == nil:
		return errors.New("response without result or error")
	case r.Result.IsError:
		return fmt.Errorf("tool error: %.300s", r.Result.Content)
	}
	return nil
}

// request encodes a request of method with params; its _meta is meta,
// plus the version, capabilities and identity of a per-request protocol
// (perRequest: the version, else "").
func request(id int64, method string, params map[string]any, meta map[string]any, perRequest string) ([]byte, error) {
	if perRequest != "" {
		m := make(map[string]any, len(meta)+3)
		maps.Copy(m, meta)
		m[metaProtocolVersion] = perRequest
		m[metaClientCapabilities] = map[string]any{}
		m[metaClientInfo] = clientInfo
		meta = m
	}
	if len(meta) > 0 {
		params["_meta"] = meta
	}
	return json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

// callMessage encodes a tools/call request (see request).
func callMessage(id int64, name string, args any, meta map[string]any, perRequest string) ([]byte, error) {
	return request(id, "tools/call", map[string]any{"name": name, "arguments": args}, meta, perRequest)
}

// Stdio is a Client for a server that speaks newline-delimited JSON-RPC on
// its stdin and stdout.
type Stdio struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	next int64
}

// StartStdio starts the server and completes the initialize handshake
// (Options.Protocol: a version with sessions).
func StartStdio(opts Options) (*Stdio, error) {
	if opts.perRequest() {
		return nil, fmt.Errorf("benchkit: protocol %s has no initialize; its client speaks it over HTTP only", opts.protocol())
	}
	cmd, err := opts.command()
	if err != nil {
		return nil, err
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = opts.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("benchkit: start %s: %w", opts.Argv[0], err)
	}
	c := &Stdio{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	// The handshake is bounded: a child that never answers is killed.
	timer := time.AfterFunc(opts.startTimeout(), func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	if _, err := c.roundTrip(0, initialize(opts.protocol())); err != nil {
		c.Close()
		return nil, fmt.Errorf("benchkit: initialize %s: %w", opts.Argv[0], err)
	}
	if _, err := io.WriteString(in, initialized+"\n"); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// roundTrip writes msg and reads lines until the response with id.
func (c *Stdio) roundTrip(id int64, msg []byte) (*response, error) {
	if _, err := c.in.Write(append(msg, '\n')); err != nil {
		return nil, err
	}
	want := strconv.FormatInt(id, 10)
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("reading the response: %w", err)
		}
		var r response
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("malformed message %.200q: %w", line, err)
		}
		if string(r.ID) == want {
			return &r, nil
		}
		// A notification or a request of the server's: not our answer.
	}
}

// CallTool implements Client.
func (c *Stdio) CallTool(ctx context.Context, name string, args any) error {
	_, err := c.Call(ctx, name, args, nil)
	return err
}

// Call implements Client.
func (c *Stdio) Call(_ context.Context, name string, args any, meta map[string]any) (json.RawMessage, error) {
	c.next++
	msg, err := callMessage(c.next, name, args, meta, "")
	if err != nil {
		return nil, err
	}
	r, err := c.roundTrip(c.next, msg)
	if err != nil {
		return nil, err
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	return r.Result.StructuredContent, nil
}

// Pid implements Client.
func (c *Stdio) Pid() int { return c.cmd.Process.Pid }

// Close closes the server's stdin (the end of the session) and waits up
// to 5 s for it to exit before killing it.
func (c *Stdio) Close() error {
	_ = c.in.Close()
	return waitOrKill(c.cmd, 5*time.Second)
}

// waitOrKill waits for cmd to exit, killing it after d.
func waitOrKill(cmd *exec.Cmd, d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return nil // the child's exit status after the session is not the benchmark's concern
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("benchkit: %s did not exit within %s; killed", cmd.Path, d)
	}
}

// urlPattern finds the listen address a server prints on stderr.
var urlPattern = lazyre.New(`https?://[^\s"]+`)

// HTTP is a Client for a server speaking Streamable HTTP (one keep-alive
// connection): one stateful session, or none on a per-request protocol.
type HTTP struct {
	cmd        *exec.Cmd
	url        string
	hc         *http.Client
	protocol   string
	perRequest string // the protocol when it is a per-request one, else ""
	session    string
	next       int64
	stderrEnd  sync.WaitGroup
}

// StartHTTP starts the server, reads the first http:// URL it prints on
// stderr as its endpoint, and completes the initialize handshake; on a
// per-request protocol (Options.Protocol) it checks with server/discover
// that the server speaks it instead.
func StartHTTP(opts Options) (*HTTP, error) {
	cmd, err := opts.command()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("benchkit: start %s: %w", opts.Argv[0], err)
	}
	timer := time.AfterFunc(opts.startTimeout(), func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	errs := bufio.NewReader(stderr)
	var url string
	var seen strings.Builder
	for url == "" {
		line, err := errs.ReadString('\n')
		seen.WriteString(line)
		if err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return nil, fmt.Errorf("benchkit: %s printed no listen address: %v\n%s", opts.Argv[0], err, seen.String())
		}
		url = urlPattern.Re().FindString(line)
	}
	c := &HTTP{cmd: cmd, url: url, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}, protocol: opts.protocol()}
	if opts.perRequest() {
		c.perRequest = c.protocol
	}
	w := opts.Stderr
	if w == nil {
		w = io.Discard
	}
	c.stderrEnd.Add(1)
	go func() { defer c.stderrEnd.Done(); _, _ = io.Copy(w, errs) }()
	ctx, cancel := context.WithTimeout(context.Background(), opts.startTimeout())
	defer cancel()
	if c.perRequest != "" {
		if err := c.discover(ctx); err != nil {
			c.Close()
			return nil, fmt.Errorf("benchkit: server/discover %s: %w", url, err)
		}
		return c, nil
	}
	if _, err := c.post(ctx, 0, initialize(c.protocol), "initialize", ""); err != nil {
		c.Close()
		return nil, fmt.Errorf("benchkit: initialize %s: %w", url, err)
	}
	if _, err := c.post(ctx, -1, []byte(initialized), "notifications/initialized", ""); err != nil {
		c.Close()
		return nil, fmt.Errorf("benchkit: notifications/initialized: %w", err)
	}
	return c, nil
}

// URL is the server's MCP endpoint.
func (c *HTTP) URL() string { return c.url }

// discover asks the server which versions it speaks and fails unless the
// client's is among them.
func (c *HTTP) discover(ctx context.Context) error {
	msg, err := request(0, "server/discover", map[string]any{}, nil, c.perRequest)
	if err != nil {
		return err
	}
	r, err := c.post(ctx, 0, msg, "server/discover", "")
	if err != nil {
		return err
	}
	if r.Error != nil {
		return fmt.Errorf("JSON-RPC error %d: %s", r.Error.Code, r.Error.Message)
	}
	if r.Result == nil || !slices.Contains(r.Result.SupportedVersions, c.perRequest) {
		return fmt.Errorf("the server does not list protocol %s among its versions", c.perRequest)
	}
	return nil
}

// post sends msg; for a request (id >= 0) it returns the response with id,
// read from a JSON body or an SSE stream; for a notification (id < 0) it
// expects 202. On a per-request protocol the request also names its
// method, and the tool it calls, in the Mcp-Method and Mcp-Name headers
// (SEP-2243), which the SDK and netmcp require.
func (c *HTTP) post(ctx context.Context, id int64, msg []byte, method, name string) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(msg))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.session != "" || c.perRequest != "" {
		req.Header.Set("Mcp-Protocol-Version", c.protocol)
	}
	if c.perRequest != "" {
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", transport.EncodeHeaderValue(name))
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	// Read to the end, so that the connection is reused.
	defer func() { _, _ = io.Copy(io.Discard, resp.Body); resp.Body.Close() }()
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" && c.session == "" {
		c.session = s
	}
	if id < 0 {
		if resp.StatusCode != http.StatusAccepted {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			return nil, fmt.Errorf("HTTP %s: %s", resp.Status, b)
		}
		return nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("HTTP %s: %s", resp.Status, b)
	}
	want := strconv.FormatInt(id, 10)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var r response
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			return nil, fmt.Errorf("malformed JSON response: %w", err)
		}
		return &r, nil
	}
	// An SSE stream: each event's data lines form one JSON-RPC message.
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("data:")):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		case len(line) == 0 && len(data) > 0:
			var r response
			if err := json.Unmarshal(data, &r); err != nil {
				return nil, fmt.Errorf("malformed SSE event %.200q: %w", data, err)
			}
			if string(r.ID) == want {
				return &r, nil
			}
			data = data[:0]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the SSE stream: %w", err)
	}
	return nil, errors.New("SSE stream ended without the response")
}

// CallTool implements Client.
func (c *HTTP) CallTool(ctx context.Context, name string, args any) error {
	_, err := c.Call(ctx, name, args, nil)
	return err
}

// Call implements Client.
func (c *HTTP) Call(ctx context.Context, name string, args any, meta map[string]any) (json.RawMessage, error) {
	c.next++
	msg, err := callMessage(c.next, name, args, meta, c.perRequest)
	if err != nil {
		return nil, err
	}
	r, err := c.post(ctx, c.next, msg, "tools/call", name)
	if err != nil {
		return nil, err
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	return r.Result.StructuredContent, nil
}

// Pid implements Client.
func (c *HTTP) Pid() int { return c.cmd.Process.Pid }

// Close ends the session (DELETE), then the server (SIGINT, killed after
// 5 s).
func (c *HTTP) Close() error {
	if c.session != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
		if err == nil {
			req.Header.Set("Mcp-Session-Id", c.session)
			req.Header.Set("Mcp-Protocol-Version", c.protocol)
			if resp, err := c.hc.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		cancel()
	}
	c.hc.CloseIdleConnections()
	_ = c.cmd.Process.Signal(os.Interrupt)
	err := waitOrKill(c.cmd, 5*time.Second)
	c.stderrEnd.Wait()
	return err
}

// vmRSS is the resident set size line of /proc/PID/status.
var vmRSS = lazyre.New(`(?m)^VmRSS:\s+(\d+) kB`)

// RSS returns the resident set size of process pid in bytes, read from
// VmRSS in /proc/PID/status (Linux).
func RSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("benchkit: RSS: %w", err)
	}
	m := vmRSS.Re().FindSubmatch(b)
	if m == nil {
		return 0, fmt.Errorf("benchkit: no VmRSS in /proc/%d/status", pid)
	}
	kb, err := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10, err
}

// Stats summarise a series of timed calls.
type Stats struct {
	Calls       int           // calls timed
	Errors      int           // calls that failed (not timed)
	P50, P99    time.Duration // latency percentiles of the calls that succeeded
	Elapsed     time.Duration // sum of the successful calls' latencies
	CallsPerSec float64       // successful calls per second of Elapsed
}

// Summarize computes Stats of the latencies lat (sorted in place) and the
// number of failed calls.
func Summarize(lat []time.Duration, errors int) Stats {
	s := Stats{Calls: len(lat), Errors: errors}
	if len(lat) == 0 {
		return s
	}
	slices.Sort(lat)
	for _, l := range lat {
		s.Elapsed += l
	}
	s.P50 = lat[len(lat)/2]
	s.P99 = lat[min(len(lat)-1, len(lat)*99/100)]
	if s.Elapsed > 0 {
		s.CallsPerSec = float64(len(lat)) / s.Elapsed.Seconds()
	}
	return s
}

// Run makes n sequential calls of tool with args on c and returns their
// latencies (successful calls only), the number of failures and the first
// failure. ctx ends the run early.
func Run(ctx context.Context, c Client, n int, tool string, args any) (lat []time.Duration, failed int, first error) {
	lat = make([]time.Duration, 0, n)
	for i := 0; i < n && ctx.Err() == nil; i++ {
		t0 := time.Now()
		err := c.CallTool(ctx, tool, args)
		d := time.Since(t0)
		if err != nil {
			failed++
			if first == nil {
				first = fmt.Errorf("call %d: %w", i+1, err)
			}
			continue
		}
		lat = append(lat, d)
	}
	return lat, failed, first
}
