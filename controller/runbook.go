package controller

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRunbookRounds bounds a device runbook's prompts/get rounds.
const maxRunbookRounds = 10

// runbook follows a device's own troubleshooting prompt (MCP-NET 6.1,
// network.troubleshoot.*): prompts/get, the tool calls its
// _meta.toolCalls asks for (made and recorded as every other call), the
// results fed back with previousContextId, until _meta.diagnosisComplete.
// It returns the device's root cause and the number of the prompt call
// that gave it; ok is false when the device has no such prompt or it
// did not complete.
func (r *run) runbook(dev, prompt string, args map[string]string) (cause string, call int, ok bool) {
	d := r.c.Fleet.Device(dev)
	if d == nil {
		return "", 0, false
	}
	prompts, err := d.ListPrompts(r.ctx)
	if err != nil {
		return "", 0, false
	}
	var spec *mcp.Prompt
	for _, p := range prompts {
		if p.Name == prompt {
			spec = p
		}
	}
	if spec == nil {
		r.progress("  [%s] has no %s runbook", dev, prompt)
		return "", 0, false
	}
	for round := 1; round <= maxRunbookRounds; round++ {
		n := r.record(dev, "prompts/get "+prompt, stringArgs(args))
		start := time.Now()
		res, err := d.GetPrompt(r.ctx, prompt, args)
		r.finishRecord(n, start, err)
		if err != nil {
			return "", n, false
		}
		if done, _ := res.Meta["diagnosisComplete"].(bool); done {
			cause = strings.TrimSpace(fmt.Sprint(res.Meta["rootCause"]))
			r.summarize(n, "runbook diagnosis: %s", cause)
			return cause, n, cause != ""
		}
		var calls []struct {
			Tool      string         `json:"tool"`
			Arguments map[string]any `json:"arguments"`
		}
		b, _ := json.Marshal(res.Meta["toolCalls"])
		if json.Unmarshal(b, &calls) != nil || len(calls) == 0 {
			r.summarize(n, "runbook round %d: no toolCalls and no diagnosis", round)
			return "", n, false
		}
		r.summarize(n, "runbook round %d: %d tool calls asked", round, len(calls))
		var results []any
		for _, c := range calls {
			out, _, err := r.call(dev, c.Tool, c.Arguments)
			if err != nil {
				results = append(results, map[string]any{"error": err.Error()})
				continue
			}
			results = append(results, out)
		}
		rb, _ := json.Marshal(results)
		args = map[string]string{"previousContextId": fmt.Sprint(res.Meta["contextId"]), "results": string(rb)}
	}
	return "", 0, false
}

func stringArgs(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if k == "results" {
			v = fmt.Sprintf("(%d bytes)", len(v))
		}
		out[k] = v
	}
	return out
}

// record adds a call that is not a tool call (prompts/get) to the report.
func (r *run) record(dev, op string, args map[string]any) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.rep.Calls) + 1
	r.rep.Calls = append(r.rep.Calls, Call{N: n, Step: r.step, Device: dev, Tool: op, Args: args})
	return n
}

// finishRecord sets a recorded call's time and error and prints it.
func (r *run) finishRecord(n int, start time.Time, err error) {
	el := time.Since(start)
	r.mu.Lock()
	c := &r.rep.Calls[n-1]
	c.ElapsedMS = float64(el.Microseconds()) / 1000
	if err != nil {
		c.Error = err.Error()
	}
	dev, op, args := c.Device, c.Tool, c.Args
	r.mu.Unlock()
	status := "ok"
	if err != nil {
		status = "error: " + firstLine(err.Error())
	}
	r.progress("  #%d [%s] %s %s (%.0f ms) %s", n, dev, op, argWords(args), float64(el.Microseconds())/1000, status)
}
