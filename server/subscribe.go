package server

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/transport"
)

// subscribable reports whether uri changes over time and can be subscribed
// to (MCP-NET 5.2: CPU, memory, syslog, interfaces).
func (s *Server) subscribable(uri string) error {
	switch {
	case s.tel != nil && (uri == netproto.URICPU || uri == netproto.URIMemory):
		return nil
	case s.tel != nil && strings.HasPrefix(uri, netproto.URISyslogPrefix):
		_, err := syslogCount(uri)
		return err
	case s.hasYang() && strings.HasPrefix(uri, netproto.URIInterfacePrefix) && len(uri) > len(netproto.URIInterfacePrefix):
		return nil
	}
	return invalidParams("%q cannot be subscribed to: subscribe to %s, %s, %s or %s",
		uri, netproto.URICPU, netproto.URIMemory, netproto.URISyslogTemplate, netproto.URIInterfaceTemplate)
}

// eventsWait bounds how long a subscription waits for the driver's change
// stream to be in place.
const eventsWait = 30 * time.Second

// subscribe records a subscription once the driver reports every change
// from then on, so that a change right after the reply is not lost.
func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	if err := s.subscribable(req.Params.URI); err != nil {
		return err
	}
	if w, ok := s.tel.(device.EventWaiter); ok {
		ctx, cancel := context.WithTimeout(ctx, eventsWait)
		defer cancel()
		if err := w.WaitEvents(ctx); err != nil {
			return netproto.Errorf(netproto.CodeUnreachable, "resources/subscribe %s: the device's changes cannot be followed yet: %v", req.Params.URI, err).Retryable()
		}
	}
	s.mu.Lock()
	s.subs[req.Params.URI]++
	s.mu.Unlock()
	return nil
}

func (s *Server) unsubscribeHandler(_ context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	if uri == "" {
		return invalidParams("resources/unsubscribe: unknown subscriptionId %q", metaString(req.Params.Meta, transport.MetaSubscriptionID))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subs[uri] > 1 {
		s.subs[uri]--
	} else {
		delete(s.subs, uri)
	}
	return nil
}

// onEvent is the driver's event callback. It must not block: the
// notification is sent from its own goroutine.
func (s *Server) onEvent(ev device.Event) {
	var uris []string
	s.mu.Lock()
	switch ev.Kind {
	case device.EventCPU:
		uris = s.subscribed(func(u string) bool { return u == netproto.URICPU })
	case device.EventMemory:
		uris = s.subscribed(func(u string) bool { return u == netproto.URIMemory })
	case device.EventSyslog:
		uris = s.subscribed(func(u string) bool { return strings.HasPrefix(u, netproto.URISyslogPrefix) })
	case device.EventInterface:
		uris = s.subscribed(func(u string) bool { return u == netproto.URIInterfacePrefix+ev.Name })
	}
	s.mu.Unlock()
	if len(uris) == 0 {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, u := range uris {
			p := &mcp.ResourceUpdatedNotificationParams{URI: u,
				Meta: mcp.Meta{transport.MetaSubscriptionID: transport.SubscriptionID(u)}}
			if ev.Log != nil {
				p.Meta["text"] = ev.Log.Text
			}
			if err := s.mcp.ResourceUpdated(ctx, p); err != nil {
				s.log.Warn("resource updated notification", "uri", u, "error", err)
			}
		}
	}()
}

// subscribed lists the subscribed URIs matching f; s.mu is held.
func (s *Server) subscribed(f func(string) bool) []string {
	var out []string
	for u := range s.subs {
		if f(u) {
			out = append(out, u)
		}
	}
	return out
}
