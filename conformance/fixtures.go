package conformance

import (
	"context"
	"encoding/base64"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// WatchedResourceURI is the resource whose subscribers are sent
// notifications/resources/updated every Options.UpdateInterval.
const WatchedResourceURI = "test://watched-resource"

// DefaultUpdateInterval is how often the watched resource "changes".
const DefaultUpdateInterval = 3 * time.Second

// Options configure NewServer.
type Options struct {
	// Version is the serverInfo version (default "0").
	Version string
	// UpdateInterval is the period of the watched resource's updates
	// (default DefaultUpdateInterval).
	UpdateInterval time.Duration
	// Logger receives SDK logs; nil discards them.
	Logger *slog.Logger
}

// capability is the MCP-NET capability the fixture server advertises: a
// device with no YANG modules and no datastores. It is there so that the
// suite also exercises netmcp's capability middleware on initialize.
var capability = netproto.NetworkCapability{
	YangModules:        []string{},
	CLIDialect:         "none",
	ConfigDatastore:    []string{},
	NotificationStream: []string{},
}

// NewServer returns an MCP server with every fixture the conformance
// suite's server scenarios call, and netmcp's MCP-NET capability
// middleware (server.Install). The watched resource is updated until ctx
// is done.
func NewServer(ctx context.Context, opts Options) *mcp.Server {
	if opts.Version == "" {
		opts.Version = "0"
	}
	if opts.UpdateInterval <= 0 {
		opts.UpdateInterval = DefaultUpdateInterval
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "netmcp-conformance", Version: opts.Version}, &mcp.ServerOptions{
		Logger:             logger,
		CompletionHandler:  complete,
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		Capabilities: &mcp.ServerCapabilities{
			Completions: &mcp.CompletionCapabilities{},
			Tools:       &mcp.ToolCapabilities{},
			Prompts:     &mcp.PromptCapabilities{},
			Resources:   &mcp.ResourceCapabilities{Subscribe: true},
			//lint:ignore SA1019 the conformance suite still tests MCP logging, deprecated since 2026-07-28
			Logging: &mcp.LoggingCapabilities{},
		},
	})
	addTools(s)
	addResources(s)
	addPrompts(s)
	server.Install(s, capability)
	go updateWatched(ctx, s, opts.UpdateInterval)
	return s
}

// updateWatched notifies the watched resource's subscribers every period
// until ctx is done.
func updateWatched(ctx context.Context, s *mcp.Server, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: WatchedResourceURI})
		}
	}
}

// complete answers completion/complete for the fixture prompts' arguments:
// the argument values that start with what was typed.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var values []string
	for _, v := range completionValues[req.Params.Argument.Name] {
		if strings.HasPrefix(v, req.Params.Argument.Value) {
			values = append(values, v)
		}
	}
	if values == nil {
		values = []string{}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

// completionValues are the suggestions per argument name.
var completionValues = map[string][]string{
	"arg1": {"paris", "park", "party", "test", "testing"},
	"arg2": {"alpha", "beta", "gamma"},
}

// Minimal media, the same bytes the suite's reference servers use.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

var (
	pngData = mustBase64(pngBase64)
	wavData = mustBase64(wavBase64)
)

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic("conformance: bad embedded media: " + err.Error())
	}
	return b
}
