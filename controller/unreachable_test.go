package controller

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
)

// TestLostDevice: a device that could not be asked is told from a device
// that answered with an error.
func TestLostDevice(t *testing.T) {
	dev := func(err error) error {
		return &client.DeviceError{Device: "r1", Op: "tools/call network.yang.get", Err: err}
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"no error", nil, false},
		{"tool error result", &client.ToolError{Tool: "ping", Text: "bad destination"}, false},
		{"invalid params from the device", dev(fmt.Errorf("calling %q: %w", "tools/call", &jsonrpc.Error{Code: -32602, Message: "unknown path"})), false},
		{"MCP-NET error from the device", dev(&jsonrpc.Error{Code: -32010, Message: "Network.AccessDenied"}), false},
		{"not connected", dev(fmt.Errorf("%w (1 failed attempts): %w", client.ErrNotConnected, &jsonrpc.Error{Code: -32005, Message: "rejected by transport"})), true},
		{"rejected by the transport", dev(fmt.Errorf("sending: %w: EOF", &jsonrpc.Error{Code: -32005, Message: "rejected by transport"})), true},
		{"client closing", dev(&jsonrpc.Error{Code: -32003, Message: "client is closing"}), true},
		{"connection closed", dev(mcp.ErrConnectionClosed), true},
		{"session missing", dev(mcp.ErrSessionMissing), true},
		{"fleet closed", dev(client.ErrClosed), true},
		{"timeout", dev(context.DeadlineExceeded), true},
		{"unclassified transport error", dev(errors.New("standalone SSE stream: exceeded 0 retries without progress")), true},
	}
	for _, tt := range tests {
		if got := lostDevice(tt.err); got != tt.want {
			t.Errorf("%s: lostDevice(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
