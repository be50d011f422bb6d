package llm_test

// These tests exercise the LLM path's protocol, not a model: no model runs
// on these machines. A scripted OpenAI-compatible chat-completions server
// (httptest) answers with tool calls chosen by each test, including
// malformed ones and calls the policy forbids, and the tests assert what
// the controller does with them against the in-process lab.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/llm"
	"github.com/netmcp/netmcp/internal/syncbuf"
	"github.com/netmcp/netmcp/inventory"
)

// The wire format of chat completions, written independently of the
// controller's own types so the test checks the protocol.
type wireRequest struct {
	Model     string     `json:"model"`
	Messages  []wireMsg  `json:"messages"`
	Tools     []wireTool `json:"tools"`
	MaxTokens int64      `json:"max_tokens"`
}

type wireMsg struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []wireCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type wireCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

// scriptedLLM is an OpenAI-compatible server whose answers a test scripts.
type scriptedLLM struct {
	key    string
	script func(n int, req wireRequest) (int, any)

	mu   sync.Mutex
	reqs []wireRequest
	auth []string
	srv  *httptest.Server
}

func newScriptedLLM(t *testing.T, key string, script func(n int, req wireRequest) (int, any)) *scriptedLLM {
	s := &scriptedLLM{key: key, script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not found: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		var req wireRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad json: "+err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, req)
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		if s.key != "" && r.Header.Get("Authorization") != "Bearer "+s.key {
			// Echo what was sent, as careless servers do: the
			// controller must not repeat it.
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "invalid key: " + r.Header.Get("Authorization")}})
			return
		}
		status, body := script(n, req)
		if status == -1 { // hang until the client gives up
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *scriptedLLM) requests() []wireRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// call is a scripted tool call.
type call struct{ id, name, args string }

// toolCalls is a chat completion asking for tool calls.
func toolCalls(calls ...call) any {
	var tcs []map[string]any
	for _, c := range calls {
		tcs = append(tcs, map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}})
	}
	return map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls",
			"message": map[string]any{"role": "assistant", "content": nil, "tool_calls": tcs}}},
		"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
	}
}

// answer is a chat completion with a final answer.
func answer(text string) any {
	return map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": text}}},
		"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
	}
}

// toolResults maps the tool messages of a request by call id.
func toolResults(req wireRequest) map[string]string {
	out := map[string]string{}
	for _, m := range req.Messages {
		if m.Role == "tool" && m.Content != nil {
			out[m.ToolCallID] = *m.Content
		}
	}
	return out
}

func newAgent(t *testing.T, l *testLab, s *scriptedLLM, key string) (*llm.Agent, *syncbuf.Buffer) {
	t.Helper()
	lc, err := llm.NewClient(s.srv.URL+"/v1", "scripted-model", key)
	if err != nil {
		t.Fatal(err)
	}
	progress := new(syncbuf.Buffer)
	return &llm.Agent{LLM: lc, Controller: &controller.Controller{Fleet: l.fleet, Hosts: l.ctl.Hosts}, Progress: progress}, progress
}

func runAgent(t *testing.T, a *llm.Agent, intent string) *llm.Run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := a.Run(ctx, intent)
	if err != nil {
		t.Fatalf("run: %v (%+v)", err, run)
	}
	return run
}

const hostnamePath = "/openconfig-system:system/config/hostname"

// TestLLMProtocol runs the LLM path against the lab with scripted models.
func TestLLMProtocol(t *testing.T) {
	l := newTestLab(t)

	t.Run("happy path: list_devices, a read tool, an answer", func(t *testing.T) {
		s := newScriptedLLM(t, "", func(n int, req wireRequest) (int, any) {
			switch n {
			case 0:
				return 200, toolCalls(call{"c1", "list_devices", `{}`})
			case 1:
				return 200, toolCalls(call{"c2", "call_device_tool", `{"device":"r2","tool":"network.yang.get","arguments":{"path":"` + hostnamePath + `"}}`})
			}
			return 200, answer("r2 answers; its hostname is r2.")
		})
		a, progress := newAgent(t, l, s, "")
		run := runAgent(t, a, "is r2 alive?")
		if run.Stop != llm.StopAnswer || run.Answer != "r2 answers; its hostname is r2." || run.Turns != 3 {
			t.Fatalf("run: stop %s turns %d answer %q", run.Stop, run.Turns, run.Answer)
		}
		if len(run.Calls) != 2 || run.Calls[0].Outcome != "ok" || run.Calls[1].Outcome != "ok" || run.Calls[1].Device != "r2" {
			t.Fatalf("calls %+v", run.Calls)
		}
		if !run.Usage.Reported || run.Usage.PromptTokens != 300 || run.Usage.CompletionTokens != 30 {
			t.Errorf("usage %+v", run.Usage)
		}
		reqs := s.requests()
		if len(reqs) != 3 || reqs[0].Model != "scripted-model" {
			t.Fatalf("%d requests", len(reqs))
		}
		// The tools offered are the controller's, with their schemas.
		var names []string
		for _, tl := range reqs[0].Tools {
			names = append(names, tl.Function.Name)
			if tl.Type != "function" || tl.Function.Parameters["type"] != "object" {
				t.Errorf("tool %+v", tl)
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{"ask", "call_device_tool", "list_devices"}) {
			t.Errorf("tools %v", names)
		}
		if reqs[0].Messages[0].Role != "system" || reqs[0].Messages[1].Role != "user" || *reqs[0].Messages[1].Content != "is r2 alive?" {
			t.Errorf("first messages %+v", reqs[0].Messages[:2])
		}
		// Each result is fed back under its call id.
		if got := toolResults(reqs[1])["c1"]; !strings.Contains(got, `"r1"`) || !strings.Contains(got, `"r3"`) || !strings.Contains(got, "network.yang.get") {
			t.Errorf("list_devices result fed back: %s", got)
		}
		if got := toolResults(reqs[2])["c2"]; !strings.Contains(got, `r2`) || strings.HasPrefix(got, "error") {
			t.Errorf("yang.get result fed back: %s", got)
		}
		// The assistant's tool-call message is repeated before the results.
		if m := reqs[1].Messages[2]; m.Role != "assistant" || len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != "c1" {
			t.Errorf("assistant message %+v", m)
		}
		if !strings.Contains(progress.String(), "call_device_tool [r2] network.yang.get") {
			t.Errorf("progress:\n%s", progress)
		}
	})

	t.Run("ask: the deterministic engine as a tool", func(t *testing.T) {
		s := newScriptedLLM(t, "", func(n int, req wireRequest) (int, any) {
			if n == 0 {
				return 200, toolCalls(call{"a1", "ask", `{"intent":"what is wrong with the network?"}`})
			}
			return 200, answer("Nothing is wrong.")
		})
		a, progress := newAgent(t, l, s, "")
		run := runAgent(t, a, "anything wrong?")
		if run.Stop != llm.StopAnswer || len(run.Calls) != 1 || run.Calls[0].Outcome != "ok" {
			t.Fatalf("run %+v", run)
		}
		got := toolResults(s.requests()[1])["a1"]
		if !strings.Contains(got, "Diagnosis") && !strings.Contains(strings.ToLower(got), "no fault") && !strings.Contains(strings.ToLower(got), "healthy") {
			t.Errorf("ask's report fed back:\n%s", got)
		}
		if !strings.Contains(progress.String(), "ask: intent:") {
			t.Errorf("ask's progress not relayed:\n%s", progress)
		}
	})

	t.Run("malformed, unknown and forbidden calls are answered with errors", func(t *testing.T) {
		edit := `{"device":"r3","tool":"network.yang.edit","arguments":{"edit":[{"operation":"merge","path":"/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/1']/config","value":{"description":"llm-was-here"}}]}}`
		cases := []struct {
			c       call
			outcome string
			want    string
		}{
			{call{"bad-json", "call_device_tool", `{"device": "r1", "tool": `}, "invalid", "not a JSON object"},
			{call{"array", "list_devices", `[1, 2]`}, "invalid", "not a JSON object"},
			{call{"trailing", "list_devices", `{} {}`}, "invalid", "trailing data"},
			{call{"unknown-tool", "reboot_everything", `{}`}, "invalid", `unknown tool "reboot_everything"`},
			{call{"unknown-device", "call_device_tool", `{"device":"r9","tool":"ping","arguments":{}}`}, "invalid", `no device "r9"`},
			{call{"unknown-device-tool", "call_device_tool", `{"device":"r1","tool":"format-flash"}`}, "invalid", `no tool "format-flash"`},
			{call{"extra-field", "call_device_tool", `{"device":"r1","tool":"ping","force":true}`}, "invalid", `unknown field "force"`},
			{call{"args-not-object", "call_device_tool", `{"device":"r1","tool":"network.yang.get","arguments":5}`}, "invalid", "must be a JSON object"},
			{call{"empty-intent", "ask", `{"intent":""}`}, "invalid", "ask needs"},
			{call{"bad-intent", "ask", `{"intent":"make me a sandwich"}`}, "invalid", "ask:"},
			{call{"write", "call_device_tool", edit}, "refused", "refused: network.yang.edit on r3"},
			{call{"commit", "call_device_tool", `{"device":"r3","tool":"network.commit","arguments":{}}`}, "refused", "refused: network.commit on r3"},
			{call{"device-error", "call_device_tool", `{"device":"r1","tool":"network.yang.get","arguments":{"path":"/no-such-module:nothing"}}`}, "error", ""},
		}
		var calls []call
		for _, tc := range cases {
			calls = append(calls, tc.c)
		}
		s := newScriptedLLM(t, "", func(n int, req wireRequest) (int, any) {
			switch n {
			case 0:
				return 200, toolCalls(calls[:7]...)
			case 1:
				return 200, toolCalls(calls[7:]...)
			}
			return 200, answer("done")
		})
		a, _ := newAgent(t, l, s, "")
		a.Limits.MaxCallsPerTurn = 10
		var asked []llm.Write
		a.Consent = func(_ context.Context, w llm.Write) (bool, string) {
			asked = append(asked, w)
			return false, "declined by the test operator"
		}
		run := runAgent(t, a, "break things")
		if run.Stop != llm.StopAnswer || run.Answer != "done" {
			t.Fatalf("the run did not go on to the answer: %+v", run)
		}
		reqs := s.requests()
		fed := toolResults(reqs[1])
		for k, v := range toolResults(reqs[2]) {
			fed[k] = v
		}
		if len(run.Calls) != len(cases) {
			t.Fatalf("%d calls recorded, want %d", len(run.Calls), len(cases))
		}
		for i, tc := range cases {
			c := run.Calls[i]
			if c.ID != tc.c.id || c.Outcome != tc.outcome || !strings.Contains(c.Error, tc.want) {
				t.Errorf("%s: outcome %s error %q, want %s %q", tc.c.id, c.Outcome, c.Error, tc.outcome, tc.want)
			}
			if got := fed[tc.c.id]; !strings.HasPrefix(got, "error: ") || !strings.Contains(got, tc.want) {
				t.Errorf("%s: fed back %q", tc.c.id, got)
			}
		}
		if len(asked) != 2 || asked[0].Device != "r3" || asked[0].Tool != "network.yang.edit" || asked[1].Tool != "network.commit" {
			t.Errorf("consent asked for %+v", asked)
		}
		// The refused edit never reached r3's candidate.
		res, err := l.fleet.Device("r3").CallTool(context.Background(), "network.yang.get", map[string]any{
			"path": "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/1']/config", "datastore": "candidate"})
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(res.StructuredContent); strings.Contains(string(b), "llm-was-here") {
			t.Errorf("refused write applied: %s", b)
		}
	})

	t.Run("a write the operator consents to reaches the device", func(t *testing.T) {
		s := newScriptedLLM(t, "", func(n int, req wireRequest) (int, any) {
			if n == 0 {
				return 200, toolCalls(call{"w", "call_device_tool", `{"device":"r3","tool":"network.yang.edit","arguments":{"edit":[{"operation":"merge","path":"/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/1']/config","value":{"description":"consented"}}]}}`})
			}
			return 200, answer("edited")
		})
		a, _ := newAgent(t, l, s, "")
		a.Consent = func(context.Context, llm.Write) (bool, string) { return true, "" }
		run := runAgent(t, a, "set a description")
		if len(run.Calls) != 1 || run.Calls[0].Outcome == "refused" || run.Calls[0].Outcome == "invalid" {
			t.Fatalf("consented write not executed: %+v", run.Calls)
		}
		// The device answered (applied, or its own approval gate spoke):
		// either way the call went through the controller to r3.
		t.Logf("device answered: %s %s%s", run.Calls[0].Outcome, run.Calls[0].Result, run.Calls[0].Error)
	})

	t.Run("a model that never stops is cut at the turn bound", func(t *testing.T) {
		s := newScriptedLLM(t, "", func(n int, req wireRequest) (int, any) {
			return 200, toolCalls(call{"loop", "list_devices", `{}`})
		})
		a, _ := newAgent(t, l, s, "")
		a.Limits.MaxTurns = 4
		run := runAgent(t, a, "loop forever")
		if run.Stop != llm.StopTurns || run.Turns != 4 || len(s.requests()) != 4 || len(run.Calls) != 4 || run.Answer != "" {
			t.Fatalf("run: stop %s turns %d requests %d calls %d", run.Stop, run.Turns, len(s.requests()), len(run.Calls))
		}
		if !strings.Contains(run.Summary, "bound of 4 turns") {
			t.Errorf("summary %q", run.Summary)
		}
	})

	t.Run("the token budget stops the run", func(t *testing.T) {
		s := newScriptedLLM(t, "", func(n int, req wireRequest) (int, any) {
			return 200, toolCalls(call{"loop", "list_devices", `{}`}) // 110 tokens each
		})
		a, _ := newAgent(t, l, s, "")
		a.Limits.MaxTokens = 250
		run := runAgent(t, a, "spend")
		if run.Stop != llm.StopTokens || len(s.requests()) != 3 || run.Usage.PromptTokens != 300 {
			t.Fatalf("run: stop %s requests %d usage %+v", run.Stop, len(s.requests()), run.Usage)
		}
		if reqs := s.requests(); reqs[2].MaxTokens != 30 {
			t.Errorf("last request's max_tokens %d, want the 30 left of the budget", reqs[2].MaxTokens)
		}
	})

	t.Run("the time bound stops a hung endpoint", func(t *testing.T) {
		s := newScriptedLLM(t, "", func(n int, req wireRequest) (int, any) { return -1, nil })
		a, _ := newAgent(t, l, s, "")
		a.Limits.Timeout = 200 * time.Millisecond
		run := runAgent(t, a, "wait")
		if run.Stop != llm.StopTime || run.Answer != "" {
			t.Fatalf("run: %+v", run)
		}
	})

	t.Run("the API key never appears in progress, reports or errors", func(t *testing.T) {
		const key = "sk-netmcp-test-7f3a9c1e5d"
		s := newScriptedLLM(t, key, func(n int, req wireRequest) (int, any) {
			switch n {
			case 0: // a model that repeats the key into a device call
				return 200, toolCalls(call{"k1", "call_device_tool", `{"device":"r1","tool":"network.yang.get","arguments":{"path":"/` + key + `"}}`},
					call{"k2", "reboot_" + key, `{}`})
			case 1:
				return 500, map[string]any{"error": map[string]any{"message": "overloaded; your key " + key + " is fine"}}
			}
			return 200, answer("unused")
		})
		a, progress := newAgent(t, l, s, key)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		run, err := a.Run(ctx, "leak "+key)
		if err == nil || run.Stop != llm.StopError {
			t.Fatalf("a 500 is an error: %v %+v", err, run)
		}
		if s.auth[0] != "Bearer "+key {
			t.Errorf("the key was not sent: %q", s.auth[0])
		}
		js, _ := json.Marshal(run)
		var text bytes.Buffer
		run.WriteText(&text)
		for what, s := range map[string]string{"error": err.Error(), "progress": progress.String(), "json": string(js), "text": text.String()} {
			if strings.Contains(s, key) {
				t.Errorf("the key is in the %s:\n%s", what, s)
			}
		}
		if !strings.Contains(err.Error(), "[redacted]") || !strings.Contains(err.Error(), "500") {
			t.Errorf("error %q", err)
		}

		// A wrong key: the server echoes what it got; the error does not.
		wrong, _ := llm.NewClient(s.srv.URL+"/v1", "m", "sk-wrong-key-0123456789")
		a.LLM = wrong
		run, err = a.Run(ctx, "hello")
		if err == nil || strings.Contains(err.Error(), "sk-wrong-key-0123456789") || !strings.Contains(err.Error(), "401") {
			t.Errorf("wrong key: %v", err)
		}
		if js, _ := json.Marshal(run); strings.Contains(string(js), "sk-wrong-key-0123456789") {
			t.Errorf("wrong key in the run: %s", js)
		}
	})
}

// TestNewLLMClient checks the endpoint rules: a key is never sent in clear
// text to another machine.
func TestNewLLMClient(t *testing.T) {
	for _, tc := range []struct {
		url, model, key string
		ok              bool
	}{
		{"https://api.example.com/v1", "m", "k-123456", true},
		{"http://127.0.0.1:8000/v1", "m", "k-123456", true},
		{"http://localhost:8000/v1", "m", "k-123456", true},
		{"http://[::1]:8000/v1", "m", "k-123456", true},
		{"http://10.0.0.5:8000/v1", "m", "", true},
		{"http://10.0.0.5:8000/v1", "m", "k-123456", false},
		{"ftp://x/v1", "m", "", false},
		{"localhost:8000", "m", "", false},
		{"https://api.example.com/v1", "", "", false},
	} {
		_, err := llm.NewClient(tc.url, tc.model, tc.key)
		if (err == nil) != tc.ok {
			t.Errorf("%s %q key %q: err %v, want ok %v", tc.url, tc.model, tc.key, err, tc.ok)
		}
		if err != nil && tc.key != "" && strings.Contains(err.Error(), tc.key) {
			t.Errorf("key in error %v", err)
		}
	}
}

// TestLLMSampling: a device's sampling/createMessage request is answered
// through the LLM only with the operator's consent.
func TestLLMSampling(t *testing.T) {
	// A device that asks its client to sample when its tool is called.
	dev := mcp.NewServer(&mcp.Implementation{Name: "sampler-device"}, nil)
	mcp.AddTool(dev, &mcp.Tool{Name: "explain"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		//lint:ignore SA1019 MCP sampling, deprecated since 2026-07-28, brings the devices' requests to the controller's model
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
			SystemPrompt: "You explain syslog lines.", MaxTokens: 100,
			//lint:ignore SA1019 MCP sampling, deprecated since 2026-07-28, brings the devices' requests to the controller's model
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "explain: %BGP-5-ADJCHANGE neighbor 10.0.12.2 Down"}}},
		})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "model " + res.Model + " said: " + res.Content.(*mcp.TextContent).Text}}}, nil, nil
	})
	for _, tc := range []struct {
		name    string
		consent bool
	}{{"consented", true}, {"declined", false}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScriptedLLM(t, "", func(n int, req wireRequest) (int, any) { return 200, answer("the BGP session to 10.0.12.2 went down") })
			lc, _ := llm.NewClient(s.srv.URL+"/v1", "scripted-model", "")
			var asked []string
			//lint:ignore SA1019 MCP sampling, deprecated since 2026-07-28, brings the devices' requests to the controller's model
			sampler := &llm.Sampler{LLM: lc, Consent: func(_ context.Context, device string, p *mcp.CreateMessageParams) (bool, string) {
				asked = append(asked, device)
				return tc.consent, "the test operator said no"
			}}
			dial := func(ctx context.Context, _ inventory.Device) (mcp.Transport, error) {
				ct, st := mcp.NewInMemoryTransports()
				ss, err := dev.Connect(ctx, st, nil)
				if err != nil {
					return nil, err
				}
				t.Cleanup(func() { ss.Close() })
				return ct, nil
			}
			f, err := client.New(&inventory.Inventory{Devices: []inventory.Device{{Name: "d1", URL: "http://in-memory"}}}, client.Options{Dial: dial, Sample: sampler.Sample})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := f.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			res, err := f.Device("d1").CallTool(ctx, "explain", map[string]any{})
			if !slices.Equal(asked, []string{"d1"}) {
				t.Errorf("consent asked for %v", asked)
			}
			reqs := s.requests()
			if !tc.consent {
				if err == nil || !strings.Contains(err.Error(), "declined") {
					t.Errorf("declined sampling: %v %v", err, res)
				}
				if len(reqs) != 0 {
					t.Errorf("the LLM was asked %d times without consent", len(reqs))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(res); got != "model scripted said: the BGP session to 10.0.12.2 went down" {
				t.Errorf("result %q", got)
			}
			if len(reqs) != 1 || len(reqs[0].Tools) != 0 || reqs[0].MaxTokens != 100 || len(reqs[0].Messages) != 2 ||
				*reqs[0].Messages[0].Content != "You explain syslog lines." || reqs[0].Messages[1].Role != "user" {
				t.Errorf("sampling request sent as %+v", reqs)
			}
		})
	}
}
