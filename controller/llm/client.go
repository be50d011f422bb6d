package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client is a client of an OpenAI-compatible chat-completions endpoint
// (POST {BaseURL}/chat/completions) with function tools. It is what
// `netmcp ask --llm URL --model NAME` plans free-form intents with and
// what answers the devices' sampling requests. The API key is sent only in
// the Authorization header and is replaced by "[redacted]" in every error,
// answer and argument the controller reports (Redact).
type Client struct {
	// BaseURL is the endpoint's base, e.g. https://api.openai.com/v1 or
	// http://127.0.0.1:8000/v1; a URL already ending in
	// /chat/completions is used as it is.
	BaseURL string
	// Model is the model name sent in every request.
	Model string
	// APIKey is the bearer token ("" sends no Authorization header).
	APIKey string
	// HTTP is the HTTP client (http.DefaultClient when nil).
	HTTP *http.Client
	// MaxResponseBytes bounds a response body (default 4 MiB).
	MaxResponseBytes int64
}

// NewClient checks the endpoint and returns a client. A key is never
// sent in clear text to another machine: with a key, the URL must be
// https or a loopback address.
func NewClient(baseURL, model, apiKey string) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("llm: endpoint %q: want an http or https URL such as https://api.openai.com/v1", baseURL)
	}
	if model == "" {
		return nil, errors.New("llm: no model name (--model)")
	}
	if apiKey != "" && u.Scheme == "http" && !llmLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("llm: refusing to send the API key in clear text to %s (use https, or a loopback address)", u.Host)
	}
	return &Client{BaseURL: baseURL, Model: model, APIKey: apiKey}, nil
}

func llmLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Redact replaces the API key in s by "[redacted]".
func (c *Client) Redact(s string) string {
	if c == nil || len(c.APIKey) < 4 {
		return s
	}
	return strings.ReplaceAll(s, c.APIKey, "[redacted]")
}

func (c *Client) endpoint() string {
	u := strings.TrimRight(c.BaseURL, "/")
	if strings.HasSuffix(u, "/chat/completions") {
		return u
	}
	return u + "/chat/completions"
}

// chatMessage is one message of a chat-completions conversation.
type chatMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// chatToolCall is a function call the model asks for. Arguments is, in
// the API, a string holding JSON; some servers send the object itself:
// both are accepted (argumentsText).
type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// argumentsText returns the call's arguments as the JSON text the model
// meant (the string's content, or the raw object).
func (tc chatToolCall) argumentsText() string {
	raw := bytes.TrimSpace(tc.Function.Arguments)
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// chatTool is a function tool offered to the model.
type chatTool struct {
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// chatRequest is the body of POST /chat/completions.
type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Tools       []chatTool    `json:"tools,omitempty"`
	MaxTokens   int64         `json:"max_tokens,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
	Stop        []string      `json:"stop,omitempty"`
}

// chatUsage is the usage a server reports (absent on some servers).
type chatUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// chatResponse is the answer of POST /chat/completions.
type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message      chatMessage `json:"message"`
		FinishReason string      `json:"finish_reason"`
	} `json:"choices"`
	Usage *chatUsage `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// chat sends one request. Errors name the endpoint's host and status,
// never the key.
func (c *Client) chat(ctx context.Context, req chatRequest) (*chatResponse, error) {
	req.Model = c.Model
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("llm: encode request: %w", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("llm: %s", c.Redact(err.Error()))
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	if c.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	start := time.Now()
	resp, err := hc.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("llm: %w", ctx.Err())
		}
		return nil, fmt.Errorf("llm: %s", c.Redact(err.Error()))
	}
	defer resp.Body.Close()
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = 4 << 20
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("llm: read response after %s: %s", time.Since(start).Round(time.Millisecond), c.Redact(err.Error()))
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("llm: response larger than %d bytes", limit)
	}
	var out chatResponse
	jerr := json.Unmarshal(b, &out)
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(b))
		if jerr == nil && out.Error != nil && out.Error.Message != "" {
			msg = out.Error.Message
		}
		return nil, fmt.Errorf("llm: %s answered %s: %s", hr.URL.Host, resp.Status, c.Redact(llmClip(msg, 300)))
	}
	if jerr != nil {
		return nil, fmt.Errorf("llm: %s: response is not chat-completions JSON: %s", hr.URL.Host, c.Redact(jerr.Error()))
	}
	if out.Error != nil && out.Error.Message != "" {
		return nil, fmt.Errorf("llm: %s: %s", hr.URL.Host, c.Redact(llmClip(out.Error.Message, 300)))
	}
	if len(out.Choices) == 0 {
		return nil, fmt.Errorf("llm: %s: response has no choices", hr.URL.Host)
	}
	return &out, nil
}

// llmClip shortens s to at most n bytes (on a rune boundary), marking the cut.
func llmClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !llmRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [%d bytes cut]", len(s)-cut)
}

func llmRuneStart(b byte) bool { return b&0xC0 != 0x80 }
