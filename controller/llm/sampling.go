package llm

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
)

// defaultMaxSamples bounds the sampling requests a Sampler answers.
const defaultMaxSamples = 20

// SampleConsentFunc asks the operator whether a device's sampling
// request may be sent to the LLM; it returns the answer and, when refused,
// why. A nil function refuses every request.
//
//lint:ignore SA1019 MCP sampling, deprecated since 2026-07-28, brings the devices' requests to the controller's model
type SampleConsentFunc func(ctx context.Context, device string, p *mcp.CreateMessageParams) (ok bool, why string)

// Sampler answers the devices' sampling/createMessage requests through
// the same chat-completions endpoint as the LLM path, each only after the
// operator consents (Consent). Its Sample method is a client.SampleFunc
// (client.Options.Sample). Only text messages are supported; the model's
// max_tokens is the request's, capped by MaxTokens; at most MaxSamples
// requests are answered per sampler.
type Sampler struct {
	LLM       *Client
	Consent   SampleConsentFunc
	MaxTokens int64 // cap per request (DefaultCompletion when 0)
	// MaxSamples bounds the requests answered (20 when 0).
	MaxSamples int
	// Progress receives one line per request (nil: silent).
	Progress io.Writer

	mu sync.Mutex
	n  int
}

// Sample answers one device's sampling request. A refusal or a failure is
// an error, which the device receives as the request's JSON-RPC error.
//
//lint:ignore SA1019 MCP sampling, deprecated since 2026-07-28, brings the devices' requests to the controller's model
func (s *Sampler) Sample(ctx context.Context, d *client.Device, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	prog := &llmProgress{w: s.Progress, redact: s.LLM.Redact}
	name := d.Name()
	msgs := []chatMessage{}
	if p.SystemPrompt != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: p.SystemPrompt})
	}
	for i, m := range p.Messages {
		t, ok := m.Content.(*mcp.TextContent)
		if !ok {
			return nil, fmt.Errorf("sampling request from %s: message %d is not text (only text sampling is supported)", name, i+1)
		}
		if m.Role != "user" && m.Role != "assistant" {
			return nil, fmt.Errorf("sampling request from %s: message %d has role %q", name, i+1, m.Role)
		}
		msgs = append(msgs, chatMessage{Role: string(m.Role), Content: t.Text})
	}
	if len(p.Messages) == 0 {
		return nil, fmt.Errorf("sampling request from %s has no messages", name)
	}
	why := "no operator to ask"
	ok := false
	if s.Consent != nil {
		ok, why = s.Consent(ctx, name, p)
	}
	if !ok {
		prog.printf("sampling request from %s declined: %s", name, why)
		return nil, fmt.Errorf("sampling request from %s declined by the operator: %s", name, why)
	}
	s.mu.Lock()
	limit := s.MaxSamples
	if limit <= 0 {
		limit = defaultMaxSamples
	}
	if s.n >= limit {
		s.mu.Unlock()
		return nil, fmt.Errorf("sampling request from %s declined: the bound of %d sampling requests is reached", name, limit)
	}
	s.n++
	s.mu.Unlock()
	maxTok := s.MaxTokens
	if maxTok <= 0 {
		maxTok = defaultCompletion
	}
	if p.MaxTokens > 0 && p.MaxTokens < maxTok {
		maxTok = p.MaxTokens
	}
	req := chatRequest{Messages: msgs, MaxTokens: maxTok, Stop: p.StopSequences}
	if p.Temperature != 0 {
		t := p.Temperature
		req.Temperature = &t
	}
	resp, err := s.LLM.chat(ctx, req)
	if err != nil {
		prog.printf("sampling request from %s failed: %v", name, err)
		return nil, err
	}
	ch := resp.Choices[0]
	stop := "endTurn"
	switch ch.FinishReason {
	case "length":
		stop = "maxTokens"
	case "stop", "":
	default:
		stop = ch.FinishReason
	}
	model := resp.Model
	if model == "" {
		model = s.LLM.Model
	}
	prog.printf("sampling request from %s answered by %s (%s)", name, model, stop)
	//lint:ignore SA1019 MCP sampling, deprecated since 2026-07-28, brings the devices' requests to the controller's model
	return &mcp.CreateMessageResult{Role: "assistant", Model: model, StopReason: stop, Content: &mcp.TextContent{Text: s.LLM.Redact(ch.Message.Content)}}, nil
}
