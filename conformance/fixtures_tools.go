package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolDef is one fixture tool: its name, description, input schema (nil:
// no arguments) and handler.
type toolDef struct {
	name, desc string
	input      json.RawMessage
	handler    mcp.ToolHandlerFor[map[string]any, any]
}

// Input schemas of the fixture tools.
var (
	noArgs     = json.RawMessage(`{"type":"object"}`)
	promptArg  = json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"]}`)
	messageArg = json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}`)
)

// fixtureTools are the tools named by the suite's server scenarios.
var fixtureTools = []toolDef{
	{"test_simple_text", "Returns one text content item", nil, content(&mcp.TextContent{Text: "This is a simple text response for testing."})},
	{"test_image_content", "Returns one image content item (PNG)", nil, content(&mcp.ImageContent{Data: pngData, MIMEType: "image/png"})},
	{"test_audio_content", "Returns one audio content item (WAV)", nil, content(&mcp.AudioContent{Data: wavData, MIMEType: "audio/wav"})},
	{"test_embedded_resource", "Returns one embedded text resource", nil, content(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
		URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."}})},
	{"test_multiple_content_types", "Returns text, image and an embedded resource", nil, content(
		&mcp.TextContent{Text: "Multiple content types test:"},
		&mcp.ImageContent{Data: pngData, MIMEType: "image/png"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}})},
	{"test_tool_with_logging", "Sends three log notifications while it runs", nil, withLogging},
	{"test_tool_with_progress", "Sends progress notifications 0, 50 and 100 of 100", nil, withProgress},
	{"test_error_handling", "Always fails with a tool error (isError true)", nil, failing},
	{"test_sampling", "Asks the client for an LLM completion of the prompt argument", promptArg, sampling},
	{"test_elicitation", "Asks the user for a username and an email", messageArg, elicitBasic},
	{"test_elicitation_sep1034_defaults", "Elicitation whose fields carry defaults (SEP-1034)", nil, elicitDefaults},
	{"test_elicitation_sep1330_enums", "Elicitation with the enum forms of SEP-1330", nil, elicitEnums},
	{"test_reconnection", "Closes its SSE stream mid-call; the result arrives after the client reconnects (SEP-1699)", nil, reconnection},
}

// schema2020Tool is the tool of the json-schema-2020-12 scenario; its
// input schema must survive tools/list verbatim.
const schema2020Tool = "json_schema_2020_12_tool"

var schema2020 = json.RawMessage(`{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"type": "object",
			"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
		}
	},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"}
	},
	"additionalProperties": false
}`)

func addTools(s *mcp.Server) {
	for _, t := range fixtureTools {
		in := t.input
		if in == nil {
			in = noArgs
		}
		mcp.AddTool(s, &mcp.Tool{Name: t.name, Description: t.desc, InputSchema: in}, t.handler)
	}
	mcp.AddTool(s, &mcp.Tool{Name: schema2020Tool, Description: "Input schema with JSON Schema 2020-12 keywords ($schema, $defs, $ref)",
		InputSchema: schema2020}, func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
		b, _ := json.Marshal(in)
		return text("JSON Schema 2020-12 tool called with: " + string(b)), nil, nil
	})
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// content returns a handler answering with the given content items.
func content(items ...mcp.Content) mcp.ToolHandlerFor[map[string]any, any] {
	return func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: items}, nil, nil
	}
}

func withLogging(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
	for _, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		//lint:ignore SA1019 the conformance suite still tests MCP logging, deprecated since 2026-07-28
		if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "conformance", Data: msg}); err != nil {
			return nil, nil, fmt.Errorf("log notification: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return text("Tool with logging executed successfully"), nil, nil
}

func withProgress(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
	token := req.Params.GetProgressToken()
	if token != nil {
		for _, p := range []float64{0, 50, 100} {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: p, Total: 100, Message: fmt.Sprintf("step %.0f of 100", p)}); err != nil {
				return nil, nil, fmt.Errorf("progress notification: %w", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return text(fmt.Sprint(token)), nil, nil
}

// failing returns an error, which the SDK turns into a result with
// isError true (a tool error, not a protocol error).
func failing(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
	//lint:ignore ST1005 the conformance suite expects this text, as the reference server words it
	return nil, nil, errors.New("This tool intentionally returns an error for testing")
}

func sampling(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
	prompt, _ := in["prompt"].(string)
	//lint:ignore SA1019 the conformance suite still tests MCP sampling, deprecated since 2026-07-28
	res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
		//lint:ignore SA1019 the conformance suite still tests MCP sampling, deprecated since 2026-07-28
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}},
		MaxTokens: 100,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("sampling: %w", err)
	}
	reply := "(non-text response)"
	if tc, ok := res.Content.(*mcp.TextContent); ok {
		reply = tc.Text
	}
	return text("LLM response: " + reply), nil, nil
}

// elicit asks the client with schema and reports the answer.
func elicit(ctx context.Context, req *mcp.CallToolRequest, message string, schema any) (*mcp.CallToolResult, any, error) {
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: message, RequestedSchema: schema})
	if err != nil {
		return nil, nil, fmt.Errorf("elicitation: %w", err)
	}
	b, _ := json.Marshal(res.Content)
	return text(fmt.Sprintf("User response: action=%s, content=%s", res.Action, b)), nil, nil
}

func elicitBasic(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
	msg, _ := in["message"].(string) // required by messageArg
	return elicit(ctx, req, msg, json.RawMessage(`{
		"type": "object",
		"properties": {
			"username": {"type": "string", "description": "User's response"},
			"email": {"type": "string", "description": "User's email address"}
		},
		"required": ["username", "email"]
	}`))
}

func elicitDefaults(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
	return elicit(ctx, req, "Test defaults for primitive types", json.RawMessage(`{
		"type": "object",
		"properties": {
			"name": {"type": "string", "description": "User name", "default": "John Doe"},
			"age": {"type": "integer", "description": "User age", "default": 30},
			"score": {"type": "number", "description": "User score", "default": 95.5},
			"status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
			"verified": {"type": "boolean", "description": "Verification status", "default": true}
		}
	}`))
}

func elicitEnums(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
	return elicit(ctx, req, "Test enum schemas", json.RawMessage(`{
		"type": "object",
		"properties": {
			"untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
			"titledSingle": {"type": "string", "oneOf": [
				{"const": "value1", "title": "First Option"},
				{"const": "value2", "title": "Second Option"},
				{"const": "value3", "title": "Third Option"}]},
			"legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
			"untitledMulti": {"type": "array", "minItems": 1, "maxItems": 3,
				"items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
			"titledMulti": {"type": "array", "minItems": 1, "maxItems": 3,
				"items": {"anyOf": [
					{"const": "value1", "title": "First Option"},
					{"const": "value2", "title": "Second Option"},
					{"const": "value3", "title": "Third Option"}]}}
		}
	}`))
}

// reconnection closes the request's SSE stream (asking the client to come
// back after 10ms), then answers; the transport delivers the answer on the
// resumed stream.
func reconnection(_ context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
	if req.Extra != nil && req.Extra.CloseSSEStream != nil {
		req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
	}
	time.Sleep(100 * time.Millisecond)
	return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."), nil, nil
}
