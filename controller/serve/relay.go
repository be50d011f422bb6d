package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
)

// relays binds the approval questions (elicitations) the devices send to
// the host request that caused them. Every tools/call and resources/read
// a host makes is registered, while it runs, with the correlation id the
// controller carries to the devices for it; a device names that id in the
// questions the request causes (package server's approval gate does), and
// the question goes to that request's host session and to no other. The
// ids of the requests in progress are unique across host sessions: a host
// that reuses another host's id gets one of the controller's for its
// request, so it cannot claim that host's questions.
type relays struct {
	mu    sync.Mutex
	calls map[*relayCall]struct{}
}

// relayCall is one host request in progress.
type relayCall struct {
	corr    string
	session *mcp.ServerSession
	id      policy.Identity
}

// begin registers a request of host session ss, of identity id, that
// asks for correlation id corr ("" for none). It returns the id to carry
// to the devices (corr, unless it is empty or a request of another
// session in progress carries it: then a new one) and the function that
// ends the registration when the request is served.
func (r *relays) begin(corr string, ss *mcp.ServerSession, id policy.Identity) (string, func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[*relayCall]struct{}{}
	}
	if corr != "" {
		for c := range r.calls {
			if c.corr == corr && c.session != ss {
				corr = ""
				break
			}
		}
	}
	if corr == "" {
		corr = client.NewCorrelationID()
	}
	c := &relayCall{corr: corr, session: ss, id: id}
	r.calls[c] = struct{}{}
	return corr, func() {
		r.mu.Lock()
		delete(r.calls, c)
		r.mu.Unlock()
	}
}

// owner returns the host session, and its identity, of the requests in
// progress that carry correlation id corr, or of every request in
// progress when corr is "" (a device that names no call). ok is false
// when no session, or more than one, has such a request: a question
// nobody or several hosts could own is answered by nobody.
func (r *relays) owner(corr string) (ss *mcp.ServerSession, id policy.Identity, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.calls {
		if corr != "" && c.corr != corr {
			continue
		}
		switch {
		case c.session == nil:
			return nil, policy.Identity{}, false
		case ss == nil:
			ss, id = c.session, c.id
		case ss != c.session:
			return nil, policy.Identity{}, false
		}
	}
	return ss, id, ss != nil
}

// Owns tells whether a host request in progress owns a device's
// approval question: the question names a correlation id, and one host
// session's requests in progress carry it. Elicit relays such a question
// to that host; another answerer (the web console, for the fixes it
// applies) must leave it alone.
func (s *Server) Owns(p *mcp.ElicitParams) bool {
	corr, _ := p.GetMeta()[netproto.MetaCorrelationID].(string)
	if corr == "" {
		return false
	}
	_, _, ok := s.relay.owner(corr)
	return ok
}

// Requester returns the identity of the host whose request in progress
// owns a device's approval question (see Owns), and whether that host can
// be asked (it declared form elicitation). ok is false when no single
// host request owns the question, or when that host does not reach d:
// such a question is answered by nobody. The command that also serves
// the web console sends to its queue the questions of a host that cannot
// be asked (and, with four-eyes, every host's: the requester must not
// approve their own change).
func (s *Server) Requester(d *client.Device, p *mcp.ElicitParams) (id string, canAsk, ok bool) {
	corr, _ := p.GetMeta()[netproto.MetaCorrelationID].(string)
	if corr == "" {
		return "", false, false
	}
	host, who, ok := s.relay.owner(corr)
	if !ok || !s.reaches(who, d) {
		return "", false, false
	}
	return who.String(), server.CanElicit(host), true
}

// Elicit relays a device's elicitation (an approval question) to the host
// session whose request caused it, naming the device, and only there. A
// question no single request in progress owns, from a device that host
// does not reach, or for a host that cannot be asked (it declared no
// elicitation, or its protocol version wants multi round-trip input
// requests, not yet relayed), is declined: nothing is approved on a
// host's behalf. The answer carries the identity of the host who gave it
// (_meta netproto.MetaAnsweredBy), which the device records, and the
// controller's audit log records the question and the answer.
func (s *Server) Elicit(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	corr, _ := p.GetMeta()[netproto.MetaCorrelationID].(string)
	host, id, ok := s.relay.owner(corr)
	if !ok || !s.reaches(id, d) {
		s.auditElicitation(d, nil, policy.Identity{}, corr, "decline", "no single host request in progress owns the question")
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	fwd := *p
	fwd.Message = fmt.Sprintf("[%s] %s", d.Name(), p.Message)
	res, err := host.Elicit(ctx, &fwd)
	if err != nil || res == nil {
		s.auditElicitation(d, host, id, corr, "decline", "the host could not be asked")
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	out := &mcp.ElicitResult{Action: res.Action, Content: res.Content, Meta: mcp.Meta{netproto.MetaAnsweredBy: id.String()}}
	s.auditElicitation(d, host, id, corr, res.Action, "")
	return out, nil
}

// auditElicitation records a device's approval question and what became
// of it: who was asked (none when nobody could be) and the answer.
func (s *Server) auditElicitation(d *client.Device, host *mcp.ServerSession, id policy.Identity, corr, action, why string) {
	if s.acc.audit == nil {
		return
	}
	rec := audit.Record{Kind: audit.KindNotification, Method: "elicitation/create", Tool: d.Name(), Identity: id.String(),
		Correlation: corr, Outcome: audit.OutcomeOK, Durable: true}
	if !validCorrelation(corr) {
		rec.Correlation = "" // a device's word, bounded as a host's is
	}
	if host != nil {
		rec.Session = host.ID()
	}
	args := map[string]string{"device": d.Name(), "action": action}
	if why != "" {
		args["reason"] = why
	}
	rec.Arguments, _ = json.Marshal(args)
	_, _ = s.acc.audit.Append(rec)
}
