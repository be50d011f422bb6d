package agent

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
)

// LocalUpdates takes the local device's notifications/resources/updated
// (an interface's state changed: from the driver's change stream, gNMI
// ON_CHANGE, where it has one) to the agent, which relays each to the
// sessions of neighbours and operators subscribed to that resource. Give
// it to LocalSession and to Config.LocalUpdates; without it the agent
// offers no subscriptions.
type LocalUpdates struct {
	mu    sync.Mutex
	relay func(context.Context, *mcp.ResourceUpdatedNotificationParams)
	acks  map[string][]chan struct{} // uri -> waiters for the device's acknowledgement
}

// NewLocalUpdates returns a LocalUpdates not yet bound to an agent.
func NewLocalUpdates() *LocalUpdates { return &LocalUpdates{} }

func (u *LocalUpdates) bind(relay func(context.Context, *mcp.ResourceUpdatedNotificationParams)) {
	u.mu.Lock()
	u.relay = relay
	u.mu.Unlock()
}

// protocolListen is the first MCP version in which resources/subscribe
// opens a subscriptions/listen stream: the client's Subscribe returns
// once the request is sent, and the server acknowledges the subscription
// with notifications/subscriptions/acknowledged once it is in place.
const protocolListen = "2026-07-28"

// methodSubscriptionsAck is that acknowledgement.
const methodSubscriptionsAck = "notifications/subscriptions/acknowledged"

// ackTimeout bounds the wait for the device's acknowledgement.
const ackTimeout = 30 * time.Second

// expectAck returns a channel closed when the device acknowledges a
// subscription to uri.
func (u *LocalUpdates) expectAck(uri string) chan struct{} {
	ch := make(chan struct{})
	u.mu.Lock()
	if u.acks == nil {
		u.acks = map[string][]chan struct{}{}
	}
	u.acks[uri] = append(u.acks[uri], ch)
	u.mu.Unlock()
	return ch
}

// forgetAck drops the waiter ch of uri, acknowledged or not.
func (u *LocalUpdates) forgetAck(uri string, ch chan struct{}) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.acks[uri] = slices.DeleteFunc(u.acks[uri], func(c chan struct{}) bool { return c == ch })
	if len(u.acks[uri]) == 0 {
		delete(u.acks, uri)
	}
}

// middleware is the local client's receiving middleware: it wakes the
// waiters of the subscriptions the device acknowledges.
func (u *LocalUpdates) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == methodSubscriptionsAck {
			if p, ok := req.GetParams().(*mcp.SubscriptionsAcknowledgedParams); ok && p != nil {
				u.mu.Lock()
				for _, uri := range p.Notifications.ResourceSubscriptions {
					for _, ch := range u.acks[uri] {
						close(ch)
					}
					delete(u.acks, uri)
				}
				u.mu.Unlock()
			}
		}
		return next(ctx, method, req)
	}
}

// handle is the local session's ResourceUpdatedHandler.
func (u *LocalUpdates) handle(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
	u.mu.Lock()
	relay := u.relay
	u.mu.Unlock()
	if relay != nil && req.Params != nil {
		relay(ctx, req.Params)
	}
}

// subscriptions are the agent's relayed subscriptions: for each resource
// of the local device, the session servers with a session subscribed to
// it (one session per server, sessionServer), and the local subscription
// held while there is any.
type subscriptions struct {
	mu      sync.Mutex
	servers map[string]map[*mcp.Server]bool // uri -> subscribed sessions' servers
	watched map[*mcp.Server]bool            // servers whose session end is watched
}

// subscribableURI reports whether uri is a resource a neighbour may follow:
// one interface's state (network:///interface/{name}), the data the
// counters and YANG-read capabilities already let it read.
func subscribableURI(uri string) bool {
	name, ok := strings.CutPrefix(uri, netproto.URIInterfacePrefix)
	return ok && name != "" && !strings.ContainsAny(name, "?#")
}

// subscribeHandlers returns the resources/subscribe and unsubscribe
// handlers of the session server *srv for peer st: the peer must be an
// operator or a neighbour authorised to read interface state, the gate
// must allow D2D, and the resource must be an interface's; the first
// subscriber of a resource subscribes the local session to it.
func (a *Agent) subscribeHandlers(st *session, srv **mcp.Server) (sub func(context.Context, *mcp.SubscribeRequest) error, unsub func(context.Context, *mcp.UnsubscribeRequest) error) {
	sub = func(ctx context.Context, req *mcp.SubscribeRequest) error {
		uri := req.Params.URI
		err := a.admitSubscribe(ctx, st, uri)
		if err == nil {
			err = a.addSubscription(ctx, *srv, req.Session, uri)
		}
		a.auditCall(st.peer.name, req.Session.ID(), "resources/subscribe", uri, nil, nil, a.cfg.Now(), err)
		return err
	}
	unsub = func(ctx context.Context, req *mcp.UnsubscribeRequest) error {
		a.removeSubscription(ctx, *srv, req.Params.URI)
		return nil
	}
	return sub, unsub
}

// admitSubscribe decides a subscription of peer st to uri.
func (a *Agent) admitSubscribe(ctx context.Context, st *session, uri string) error {
	if !subscribableURI(uri) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: "resources/subscribe: " + uri + " cannot be followed: subscribe to " + netproto.URIInterfaceTemplate}
	}
	if st.peer.role != RoleDevice {
		return nil
	}
	caps, ready := st.caps()
	if !ready {
		return refuse("session not initialized")
	}
	if err := a.allowed(ctx); err != nil {
		return refuse("%v", err)
	}
	if !slices.Contains(caps, CapCounters) && !slices.Contains(caps, CapYangRead) {
		return refuse("%s may not follow %s on %s: neither %s nor %s is authorised", st.peer.name, uri, a.name, CapCounters, CapYangRead)
	}
	return nil
}

// addSubscription records srv's session ss as subscribed to uri,
// subscribing the local session when it is the first.
func (a *Agent) addSubscription(ctx context.Context, srv *mcp.Server, ss *mcp.ServerSession, uri string) error {
	s := &a.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.servers[uri]) == 0 {
		if err := a.subscribeLocal(ctx, uri); err != nil {
			return err
		}
	}
	if s.servers == nil {
		s.servers, s.watched = map[string]map[*mcp.Server]bool{}, map[*mcp.Server]bool{}
	}
	if s.servers[uri] == nil {
		s.servers[uri] = map[*mcp.Server]bool{}
	}
	s.servers[uri][srv] = true
	if !s.watched[srv] {
		s.watched[srv] = true
		go func() { // a session that ends drops its subscriptions
			_ = ss.Wait()
			a.dropServer(srv)
		}()
	}
	return nil
}

// subscribeLocal subscribes the local session to uri and returns once the
// device has it in place, so that no change after the reply is lost.
// Since protocolListen the client's Subscribe only sends the request: the
// device's acknowledgement says the subscription is in place (a device
// that refuses it never acknowledges it).
func (a *Agent) subscribeLocal(ctx context.Context, uri string) error {
	ir := a.cfg.Local.InitializeResult()
	if ir == nil || ir.ProtocolVersion < protocolListen || a.cfg.LocalUpdates == nil {
		return a.cfg.Local.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	}
	u := a.cfg.LocalUpdates
	acked := u.expectAck(uri)
	defer u.forgetAck(uri, acked)
	if err := a.cfg.Local.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		return err
	}
	t := time.NewTimer(ackTimeout)
	defer t.Stop()
	select {
	case <-acked:
		return nil
	case <-t.C:
		return netproto.Errorf(netproto.CodeUnreachable, "resources/subscribe %s: the device did not acknowledge the subscription within %v", uri, ackTimeout).Retryable()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// removeSubscription ends srv's subscription to uri, and the local one
// with the last.
func (a *Agent) removeSubscription(ctx context.Context, srv *mcp.Server, uri string) {
	s := &a.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.servers[uri][srv] {
		return
	}
	delete(s.servers[uri], srv)
	if len(s.servers[uri]) == 0 {
		delete(s.servers, uri)
		_ = a.cfg.Local.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	}
}

// dropServer ends every subscription of srv's session, which has ended.
func (a *Agent) dropServer(srv *mcp.Server) {
	s := &a.subs
	s.mu.Lock()
	delete(s.watched, srv)
	var uris []string
	for uri, servers := range s.servers {
		if servers[srv] {
			uris = append(uris, uri)
		}
	}
	s.mu.Unlock()
	for _, uri := range uris {
		a.removeSubscription(context.Background(), srv, uri)
	}
}

// relayUpdate tells every session subscribed to the local resource of p
// that it changed. The notification carries no data: a neighbour reads
// the new state with a call, whose result is signed.
func (a *Agent) relayUpdate(ctx context.Context, p *mcp.ResourceUpdatedNotificationParams) {
	a.subs.mu.Lock()
	servers := make([]*mcp.Server, 0, len(a.subs.servers[p.URI]))
	for srv := range a.subs.servers[p.URI] {
		servers = append(servers, srv)
	}
	a.subs.mu.Unlock()
	for _, srv := range servers {
		if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: p.URI}); err != nil {
			a.log.Warn("d2d resource update not relayed", "uri", p.URI, "err", err)
		}
	}
}
