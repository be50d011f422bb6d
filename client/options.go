package client

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/inventory"
)

// Defaults of Options.
const (
	DefaultConcurrency     = 64
	DefaultCallTimeout     = 30 * time.Second
	DefaultConnectTimeout  = 10 * time.Second
	DefaultKeepAlive       = 15 * time.Second
	DefaultBackoffInitial  = 250 * time.Millisecond
	DefaultBackoffMax      = 30 * time.Second
	DefaultProtocolVersion = "2025-11-25"
)

// ElicitFunc answers an elicitation a device sent (a server asking its
// client, hence the operator, for input or consent). The controller relays
// it to the operator; d tells which device asks.
type ElicitFunc func(ctx context.Context, d *Device, req *mcp.ElicitParams) (*mcp.ElicitResult, error)

// SampleFunc answers a device's sampling/createMessage request.
//
//lint:ignore SA1019 MCP sampling, deprecated since 2026-07-28, brings the devices' requests to the controller's model
type SampleFunc func(ctx context.Context, d *Device, req *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)

// RemoteFunc runs a tool call on a device the fleet released (another
// controller replica holds its session) and returns that replica's answer;
// a result with isError set is the device's own tool error.
type RemoteFunc func(ctx context.Context, d *Device, tool string, args any) (*mcp.CallToolResult, error)

// RemoteRequestFunc runs an MCP request other than a tool call on a
// device the fleet released (resources/read, prompts/list, prompts/get)
// on the replica that holds its session, and decodes that replica's
// result into result (a pointer to the method's result type).
type RemoteRequestFunc func(ctx context.Context, d *Device, method string, params, result any) error

// Options configure a Fleet. The zero value is usable.
type Options struct {
	// Name and Version are the clientInfo sent at initialize (default
	// "netmcp-client" and "dev").
	Name, Version string
	// Concurrency bounds the devices a fan-out works on at once
	// (DefaultConcurrency).
	Concurrency int
	// CallTimeout bounds the work on one device in a fan-out, and a call
	// made through a Device whose context has no deadline
	// (DefaultCallTimeout).
	CallTimeout time.Duration
	// ConnectTimeout bounds one connection attempt: transport, initialize
	// and the tool list (DefaultConnectTimeout). It starts when the attempt
	// begins, not while it waits behind Concurrency others.
	ConnectTimeout time.Duration
	// KeepAlive is the period of the ping that checks a session is alive
	// (DefaultKeepAlive); negative disables it. KeepAliveFailures
	// consecutive failed pings (default 2) end the session, which the
	// supervisor then replaces.
	KeepAlive         time.Duration
	KeepAliveFailures int
	// BackoffInitial and BackoffMax shape the delay between connection
	// attempts: it starts at BackoffInitial, doubles after each failure up to
	// BackoffMax, with up to 20% random jitter, and resets once a session
	// is established.
	BackoffInitial, BackoffMax time.Duration
	// ProtocolVersion is the MCP version offered (DefaultProtocolVersion,
	// a stateful session: keep-alive, subscriptions and elicitation on the
	// session).
	ProtocolVersion string

	// Elicit handles elicitations from devices; nil means the client does
	// not advertise elicitation (devices then use confirmation tokens).
	Elicit ElicitFunc
	// Sample handles sampling requests; nil means no sampling capability.
	Sample SampleFunc
	// OnResourceUpdated receives notifications/resources/updated of the
	// resources subscribed with Device.Subscribe.
	OnResourceUpdated func(d *Device, p *mcp.ResourceUpdatedNotificationParams)
	// OnProgress receives progress notifications of calls in progress.
	OnProgress func(d *Device, p *mcp.ProgressNotificationParams)
	// OnLog receives notifications/message log records.
	//lint:ignore SA1019 MCP logging, deprecated since 2026-07-28, carries the drafts' live output
	OnLog func(d *Device, p *mcp.LoggingMessageParams)
	// OnState is told of every change of a device's connection state,
	// with the error that caused it (nil when connected).
	OnState func(d *Device, s State, err error)

	// Remote, when set, takes the tool calls made on a device the fleet
	// released (Fleet.Release): a controller replica forwards them to the
	// replica that owns the device.
	Remote RemoteFunc
	// RemoteRequest, when set, takes the other requests made on a device
	// the fleet released: resources/read, prompts/list and prompts/get.
	RemoteRequest RemoteRequestFunc

	// Dial, when set, replaces the transport the inventory describes (for
	// in-memory servers in tests and benchmarks, or a custom dialer).
	Dial func(ctx context.Context, dev inventory.Device) (mcp.Transport, error)
	// Stderr receives the standard error of stdio commands (nil discards it).
	Stderr io.Writer
	// Logger receives the supervisors' logs; nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = "netmcp-client"
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.KeepAliveFailures <= 0 {
		o.KeepAliveFailures = 2
	}
	if o.BackoffInitial <= 0 {
		o.BackoffInitial = DefaultBackoffInitial
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = DefaultBackoffMax
	}
	if o.BackoffMax < o.BackoffInitial {
		o.BackoffMax = o.BackoffInitial
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = DefaultProtocolVersion
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
