package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
	"github.com/netmcp/netmcp/transport"
)

// rawSession is a stdio session spoken in raw JSON-RPC lines.
type rawSession struct {
	t   *testing.T
	in  *io.PipeWriter
	out *bufio.Reader
}

func newRawSession(t *testing.T) *rawSession {
	t.Helper()
	s, err := server.New(servertest.New(), server.Options{}) // the default gate: every write needs approval
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	or, ow := io.Pipe()
	go func() { _ = transport.ServeIO(context.Background(), s.MCP(), pr, ow); ow.Close() }()
	t.Cleanup(func() { pw.Close(); s.Close() })
	return &rawSession{t: t, in: pw, out: bufio.NewReader(or)}
}

// call sends one line and returns the result (or error) of the reply with
// the given id, skipping notifications and server requests.
func (r *rawSession) call(line string, id int) map[string]json.RawMessage {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
	done := make(chan map[string]json.RawMessage, 1)
	go func() {
		for {
			l, err := r.out.ReadString('\n')
			if err != nil {
				done <- nil
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal([]byte(l), &m) == nil && string(m["id"]) == strings.TrimSpace(string(mustMarshal(id))) && m["method"] == nil {
				done <- m
				return
			}
		}
	}()
	select {
	case m := <-done:
		if m == nil {
			r.t.Fatal("the session ended")
		}
		return m
	case <-time.After(20 * time.Second):
		r.t.Fatalf("no reply to %s", line)
	}
	return nil
}

func mustMarshal(v any) []byte { b, _ := json.Marshal(v); return b }

// newProtocolMeta is the _meta of a 2026-07-28 request (SEP-2575) from a
// client that can answer form elicitations.
const newProtocolMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`

// TestApproverUsesNegotiatedVersion: a client that asks for 2026-07-28 in
// initialize negotiates 2025-11-25 and must not receive the 2026-07-28
// input-required result (before, the gate read the requested version); it
// gets the approval token instead. A 2026-07-28 request still gets the
// input-required result.
func TestApproverUsesNegotiatedVersion(t *testing.T) {
	r := newRawSession(t)
	res := r.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"c","version":"1"}}}`, 1)
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(res["result"], &init)
	if init.ProtocolVersion != "2025-11-25" {
		t.Fatalf("negotiated %q (%s), want 2025-11-25", init.ProtocolVersion, res["error"])
	}
	r.call(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`, 2)
	res = r.call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+netproto.ToolCLIConfigure+`","arguments":{"lines":"sysname x"}}}`, 3)
	body := string(res["result"])
	if strings.Contains(body, "input_required") || strings.Contains(body, "inputRequests") {
		t.Fatalf("a 2025-11-25 session received a 2026-07-28 input-required result: %s", body)
	}
	if !strings.Contains(body, server.StatusApprovalRequired) || !strings.Contains(body, "approvalToken") {
		t.Fatalf("result %s %s, want the approval token", body, res["error"])
	}

	n := newRawSession(t)
	res = n.call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+netproto.ToolCLIConfigure+`","arguments":{"lines":"sysname x"},`+newProtocolMeta+`}}`, 1)
	if body := string(res["result"]); !strings.Contains(body, `"resultType":"input_required"`) {
		t.Fatalf("2026-07-28 call: %s %s, want an input-required result", body, res["error"])
	}
}

// TestReadResultType: on 2026-07-28 every resources/read result carries
// resultType "complete", as the SDK's own results do (clients of that
// version refuse a result without it); older sessions get none.
func TestReadResultType(t *testing.T) {
	n := newRawSession(t)
	for i, uri := range []string{netproto.URIInterfaces, netproto.URIRunningConfig, netproto.URICPU} {
		res := n.call(`{"jsonrpc":"2.0","id":`+string(mustMarshal(i+1))+`,"method":"resources/read","params":{"uri":"`+uri+`",`+newProtocolMeta+`}}`, i+1)
		var got struct {
			ResultType string            `json:"resultType"`
			Contents   []json.RawMessage `json:"contents"`
		}
		if err := json.Unmarshal(res["result"], &got); err != nil || len(got.Contents) == 0 {
			t.Fatalf("read %s: %s %s", uri, res["result"], res["error"])
		}
		if got.ResultType != "complete" {
			t.Errorf("read %s on 2026-07-28: resultType %q, want complete", uri, got.ResultType)
		}
	}
	o := newRawSession(t)
	o.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, 1)
	res := o.call(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"`+netproto.URIInterfaces+`"}}`, 2)
	if strings.Contains(string(res["result"]), "resultType") || res["result"] == nil {
		t.Errorf("read on 2025-11-25: %s %s, want a result without resultType", res["result"], res["error"])
	}
}
