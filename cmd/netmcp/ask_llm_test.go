package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestAskLLM runs `netmcp ask --lab --llm URL --model NAME` against a
// scripted OpenAI-compatible server (a protocol test: no model runs here).
// The model lists the devices, then asks r1 to write, which is refused
// without a terminal, then answers; the key comes from the named
// environment variable and appears nowhere in the output.
func TestAskLLM(t *testing.T) {
	const key = "sk-cli-test-5e1d0c9b"
	t.Setenv("NETMCP_TEST_LLM_KEY", key)
	var mu sync.Mutex
	var auth []string
	var fed []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		n := len(auth)
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			fed = append(fed, last.Content)
		}
		mu.Unlock()
		msg := map[string]any{"role": "assistant", "content": "r1, r2 and r3 are connected; nothing was changed."}
		switch n {
		case 1:
			msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "c1", "type": "function",
				"function": map[string]any{"name": "list_devices", "arguments": "{}"}}}}
		case 2:
			msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "c2", "type": "function",
				"function": map[string]any{"name": "call_device_tool", "arguments": `{"device":"r1","tool":"network.commit","arguments":{}}`}}}}
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": msg, "finish_reason": "stop"}}})
	}))
	defer srv.Close()
	out, errOut, err := askRun(t, "--lab", "--llm", srv.URL+"/v1", "--model", "scripted", "--llm-key-env", "NETMCP_TEST_LLM_KEY", "--json",
		"--reports", t.TempDir(), "which devices are up?")
	if err != nil {
		t.Fatalf("ask --llm: %v\n%s", err, errOut)
	}
	var run struct {
		Stop   string `json:"stop"`
		Answer string `json:"answer"`
		Calls  []struct {
			Outcome string `json:"outcome"`
			Error   string `json:"error"`
		} `json:"calls"`
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if run.Stop != "answer" || !strings.Contains(run.Answer, "nothing was changed") || len(run.Calls) != 2 ||
		run.Calls[0].Outcome != "ok" || run.Calls[1].Outcome != "refused" || !strings.Contains(run.Calls[1].Error, "no terminal") {
		t.Fatalf("run %+v", run)
	}
	mu.Lock()
	defer mu.Unlock()
	if auth[0] != "Bearer "+key || len(fed) != 2 || !strings.HasPrefix(fed[1], "error: refused") {
		t.Errorf("auth %q, fed back %q", auth, fed)
	}
	t.Logf("stderr:\n%s", errOut)
	if strings.Contains(out+errOut, key) {
		t.Errorf("the key is in the output")
	}
	if !strings.Contains(errOut, "key from $NETMCP_TEST_LLM_KEY (set)") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

// TestAskLLMFlags: the LLM flags' errors.
func TestAskLLMFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lab", "--model", "m", "hi"}, "need --llm URL"},
		{[]string{"--lab", "--llm", "http://127.0.0.1:1/v1", "hi"}, "no model name"},
		{[]string{"--lab", "--llm", "localhost:1", "--model", "m", "hi"}, "want an http or https URL"},
	} {
		_, _, err := askRun(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
