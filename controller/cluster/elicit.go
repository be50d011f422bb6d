package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/netproto"
)

// methodElicit is the method of an approval question relayed back to the
// replica that forwarded the call which caused it.
const methodElicit = "elicitation/create"

// elicitTimeout bounds a relayed question whose call has no deadline.
const elicitTimeout = 5 * time.Minute

// forwards are the calls other replicas forwarded here that are running,
// by the correlation id they carry: a device's approval question naming
// one of them goes back to the replica that forwarded it.
type forwards struct {
	mu sync.Mutex
	m  map[string]*forwarded
}

type forwarded struct {
	from     string // the asking instance
	n        int    // its calls in progress with this id
	deadline int64  // the latest of their deadlines (Unix ns, 0: none)
}

// begin records a forwarded call in progress; the function returned ends
// it.
func (f *forwards) begin(corr, from string, deadline int64) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]*forwarded{}
	}
	c := f.m[corr]
	if c == nil || c.from != from {
		// A correlation id is one intent of one host: the latest asker
		// has it.
		c = &forwarded{from: from}
		f.m[corr] = c
	}
	c.n++
	if deadline == 0 || (c.deadline != 0 && deadline > c.deadline) {
		c.deadline = deadline
	}
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		c.n--
		if c.n == 0 && f.m[corr] == c {
			delete(f.m, corr)
		}
	}
}

// lookup returns the instance that forwarded the calls carrying corr.
func (f *forwards) lookup(corr string) (from string, deadline int64, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.m[corr]
	if c == nil || corr == "" {
		return "", 0, false
	}
	return c.from, c.deadline, true
}

// RelayElicit sends an approval question (elicitation/create params) that
// device, held here, asked naming correlation id corr, to the replica
// that forwarded the call carrying corr, and returns its answer. ok is
// false when no call forwarded here carries corr: the question is not
// another replica's to answer.
func (r *Replica) RelayElicit(ctx context.Context, device, corr string, params json.RawMessage) (res json.RawMessage, ok bool, err error) {
	from, dl, ok := r.fwd.lookup(corr)
	if !ok {
		return nil, false, nil
	}
	if dl != 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.Unix(0, dl))
		defer cancel()
	} else if _, has := ctx.Deadline(); !has {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, elicitTimeout)
		defer cancel()
	}
	res, err = r.forward(ctx, from, request{Device: device, Method: methodElicit, Params: params, Corr: corr, From: r.self})
	return res, true, err
}

// answerElicit answers a question relayed by the owner of a device with
// Config.Elicit.
func (r *Replica) answerElicit(ctx context.Context, m *nats.Msg, req request) {
	rep := reply{Replica: r.self}
	if r.cfg.Elicit == nil {
		rep.Error = "replica " + r.self + " answers no approval questions"
		r.respond(m, rep)
		return
	}
	if req.Corr != "" {
		ctx = client.WithCorrelationID(ctx, req.Corr)
	}
	res, err := r.cfg.Elicit(ctx, req.Device, req.Params)
	if err != nil {
		rep.Error = err.Error()
	} else {
		rep.Result = res
	}
	r.respond(m, rep)
}

// RelayElicit is the owner's side of a device's approval question: when
// the question names the correlation id of a call another replica
// forwarded here, it goes to that replica (ok true) and its answer comes
// back; otherwise ok is false and the caller answers it as its own.
func (s *FleetSessions) RelayElicit(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (res *mcp.ElicitResult, ok bool, err error) {
	r := s.replica.Load()
	corr, _ := p.GetMeta()[netproto.MetaCorrelationID].(string)
	if r == nil || corr == "" {
		return nil, false, nil
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, false, err
	}
	out, ok, err := r.RelayElicit(ctx, d.Name(), corr, raw)
	if !ok || err != nil {
		return nil, ok, err
	}
	res = &mcp.ElicitResult{}
	if err := json.Unmarshal(out, res); err != nil {
		return nil, true, fmt.Errorf("cluster: %s: the answer relayed: %w", d.Name(), err)
	}
	return res, true, nil
}

// ElicitVia makes elicit, the answerer of the questions of fleet's own
// devices (the one that relays each to the host whose request caused it),
// the answerer of the questions relayed by the other replicas: their
// Config.Elicit.
func ElicitVia(fleet *client.Fleet, elicit client.ElicitFunc) func(ctx context.Context, device string, params json.RawMessage) (json.RawMessage, error) {
	return func(ctx context.Context, device string, params json.RawMessage) (json.RawMessage, error) {
		d := fleet.Device(device)
		if d == nil {
			return nil, fmt.Errorf("%w: %s", ErrUnknownDevice, device)
		}
		var p mcp.ElicitParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("cluster: relayed question: %w", err)
		}
		res, err := elicit(ctx, d, &p)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
}
