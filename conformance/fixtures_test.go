package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/netproto"
)

// suiteVersion is the protocol version the conformance suite's client
// negotiates; sampling and elicitation inside a tool call, as the fixtures
// do them, predate 2026-07-28.
const suiteVersion = "2025-11-25"

// connect serves NewServer in memory and returns a client session speaking
// suiteVersion.
func connect(t testing.TB, opts Options, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewServer(ctx, opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: suiteVersion})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestFixtureCapabilities(t *testing.T) {
	cs := connect(t, Options{}, nil)
	caps := cs.InitializeResult().Capabilities
	//lint:ignore SA1019 the conformance suite still tests MCP logging, deprecated since 2026-07-28
	if caps.Completions == nil || caps.Logging == nil || caps.Resources == nil || !caps.Resources.Subscribe {
		t.Errorf("capabilities = %+v, want completions, logging and resources.subscribe", caps)
	}
	if _, ok := caps.Extensions[netproto.ExtensionID]; !ok {
		t.Errorf("capabilities.extensions lacks %q (netmcp's capability middleware not installed): %v", netproto.ExtensionID, caps.Extensions)
	}
}

func TestFixtureToolContent(t *testing.T) {
	cs := connect(t, Options{}, nil)
	tests := []struct {
		tool      string
		wantTypes []string
		wantErr   bool
	}{
		{"test_simple_text", []string{"text"}, false},
		{"test_image_content", []string{"image"}, false},
		{"test_audio_content", []string{"audio"}, false},
		{"test_embedded_resource", []string{"resource"}, false},
		{"test_multiple_content_types", []string{"text", "image", "resource"}, false},
		{"test_error_handling", []string{"text"}, true},
		{schema2020Tool, []string{"text"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.wantErr {
				t.Errorf("isError = %v, want %v", res.IsError, tc.wantErr)
			}
			var types []string
			for _, c := range res.Content {
				b, _ := json.Marshal(c)
				var v struct{ Type string }
				_ = json.Unmarshal(b, &v)
				types = append(types, v.Type)
			}
			if !slices.Equal(types, tc.wantTypes) {
				t.Errorf("content types = %v, want %v", types, tc.wantTypes)
			}
		})
	}
}

func TestFixtureSchemaPreserved(t *testing.T) {
	cs := connect(t, Options{}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != schema2020Tool {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		for _, kw := range []string{`"$schema":"https://json-schema.org/draft/2020-12/schema"`, `"$defs"`, `"additionalProperties":false`} {
			if !strings.Contains(string(b), kw) {
				t.Errorf("inputSchema %s lacks %s", b, kw)
			}
		}
		return
	}
	t.Fatalf("tools/list lacks %s", schema2020Tool)
}

func TestFixtureNotifications(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	var progress []float64
	cs := connect(t, Options{}, &mcp.ClientOptions{
		//lint:ignore SA1019 the conformance suite still tests MCP logging, deprecated since 2026-07-28
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, fmt.Sprint(r.Params.Data))
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, r.Params.Progress)
		},
	})
	ctx := context.Background()
	//lint:ignore SA1019 the conformance suite still tests MCP logging, deprecated since 2026-07-28
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_tool_with_logging"}); err != nil {
		t.Fatal(err)
	}
	p := &mcp.CallToolParams{Name: "test_tool_with_progress"}
	p.SetProgressToken("tok-1")
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "tok-1" {
		t.Errorf("progress tool answered %q, want the progress token", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logs) != 3 {
		t.Errorf("log notifications = %q, want 3", logs)
	}
	if !slices.Equal(progress, []float64{0, 50, 100}) {
		t.Errorf("progress = %v, want [0 50 100]", progress)
	}
}

func TestFixtureClientRequests(t *testing.T) {
	cs := connect(t, Options{}, &mcp.ClientOptions{
		//lint:ignore SA1019 the conformance suite still tests MCP sampling, deprecated since 2026-07-28
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			in := r.Params.Messages[0].Content.(*mcp.TextContent).Text
			//lint:ignore SA1019 the conformance suite still tests MCP sampling, deprecated since 2026-07-28
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "echo " + in}}, nil
		},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "u", "email": "e@x"}}, nil
		},
	})
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"test_sampling", map[string]any{"prompt": "hi"}, "LLM response: echo hi"},
		{"test_elicitation", map[string]any{"message": "who?"}, `User response: action=accept, content={"email":"e@x","username":"u"}`},
	}
	for _, tc := range tests {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; got != tc.want {
			t.Errorf("%s = %q, want %q", tc.tool, got, tc.want)
		}
	}
}

func TestFixtureResourcesAndCompletion(t *testing.T) {
	cs := connect(t, Options{}, nil)
	ctx := context.Background()
	tests := []struct {
		uri, wantMIME, wantText string
		wantBlob                bool
		wantErr                 bool
	}{
		{uri: "test://static-text", wantMIME: "text/plain", wantText: "This is the content of the static text resource."},
		{uri: "test://static-binary", wantMIME: "image/png", wantBlob: true},
		{uri: "test://template/42/data", wantMIME: "application/json", wantText: `{"id":"42","templateTest":true,"data":"Data for ID: 42"}`},
		{uri: "test://template/a/b/data", wantErr: true},
	}
	for _, tc := range tests {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
		if tc.wantErr {
			if err == nil {
				t.Errorf("read %s: want an error", tc.uri)
			}
			continue
		}
		if err != nil {
			t.Fatalf("read %s: %v", tc.uri, err)
		}
		c := res.Contents[0]
		if c.MIMEType != tc.wantMIME || c.Text != tc.wantText || (len(c.Blob) > 0) != tc.wantBlob {
			t.Errorf("read %s = %+v", tc.uri, c)
		}
	}
	comp, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
		Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: "par"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(comp.Completion.Values, []string{"paris", "park", "party"}) {
		t.Errorf("completion values = %v", comp.Completion.Values)
	}
}

func TestFixtureWatchedResourceUpdates(t *testing.T) {
	updated := make(chan string, 4)
	cs := connect(t, Options{UpdateInterval: 20 * time.Millisecond}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case updated <- r.Params.URI:
			default:
			}
		},
	})
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: WatchedResourceURI}); err != nil {
		t.Fatal(err)
	}
	select {
	case uri := <-updated:
		if uri != WatchedResourceURI {
			t.Errorf("update for %s, want %s", uri, WatchedResourceURI)
		}
	case <-time.After(testwait.Timeout(5 * time.Second)):
		t.Fatalf("no notifications/resources/updated within %s of subscribing", testwait.Timeout(5*time.Second))
	}
}

// Example serves the fixtures and calls one of them, as the conformance
// suite's tools-call-simple-text scenario does.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := NewServer(ctx, Options{}).Connect(ctx, st, nil); err != nil {
		fmt.Println(err)
		return
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: This is a simple text response for testing.
}
