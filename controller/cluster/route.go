package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// request is a call forwarded to the replica that owns the device.
type request struct {
	Device string          `json:"device"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args,omitempty"`
	// Deadline is the caller's deadline (Unix nanoseconds, 0: none).
	Deadline int64 `json:"deadline,omitempty"`
}

// reply is the owner's answer to a request.
type reply struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	// NotOwner says the replica does not serve the device (any more): the
	// caller looks the owner up again.
	NotOwner bool   `json:"not_owner,omitempty"`
	Replica  string `json:"replica"`
}

// RemoteError is a tool error returned by the replica that owns the device.
type RemoteError struct {
	Replica string // the instance that ran the call
	Device  string
	Msg     string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("cluster: %s on %s: %s", e.Device, e.Replica, e.Msg)
}

// retryBackoff is the pause before looking a device's owner up again.
const retryBackoff = 25 * time.Millisecond

// Call runs tool on device where the device is owned: locally when this
// replica serves it, otherwise on the owner through NATS request/reply.
// While the device has no owner (a lease changing hands) it waits and
// retries until ctx ends; give ctx a deadline.
func (r *Replica) Call(ctx context.Context, device, tool string, args json.RawMessage) (json.RawMessage, error) {
	r.mu.Lock()
	known, stopped := r.inventory[device], r.stopped
	r.mu.Unlock()
	if stopped {
		return nil, ErrStopped
	}
	if !known {
		return nil, fmt.Errorf("%w: %s", ErrUnknownDevice, device)
	}
	var dl int64
	if d, ok := ctx.Deadline(); ok {
		dl = d.UnixNano()
	}
	var last error
	for {
		if r.serving(device) {
			return r.cfg.Sessions.Call(ctx, device, tool, args)
		}
		if own, ok := r.Owner(device); ok && own != r.self {
			res, err := r.forward(ctx, own, request{Device: device, Tool: tool, Args: args, Deadline: dl})
			if err == nil {
				return res, nil
			}
			var re *RemoteError
			if errors.As(err, &re) {
				return nil, err
			}
			last = err
			if ctx.Err() == nil {
				r.refresh(ctx, device)
			}
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrNoOwner, device, last)
			}
			return nil, fmt.Errorf("%w: %s: %w", ErrNoOwner, device, ctx.Err())
		case <-time.After(retryBackoff):
		}
	}
}

// errNotOwner is a forwarded call answered by a replica that does not
// serve the device.
var errNotOwner = errors.New("not the owner")

// forward sends one request to instance and waits for its reply.
func (r *Replica) forward(ctx context.Context, instance string, req request) (json.RawMessage, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	rctx := ctx
	if _, ok := ctx.Deadline(); !ok {
		// nats.go needs a deadline on a request's context.
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, time.Minute)
		defer cancel()
	}
	m, err := r.cfg.Conn.RequestWithContext(rctx, r.callSubject(instance), b)
	if err != nil {
		return nil, err
	}
	var rep reply
	if err := json.Unmarshal(m.Data, &rep); err != nil {
		return nil, fmt.Errorf("cluster: reply from %s: %w", instance, err)
	}
	switch {
	case rep.NotOwner:
		return nil, errNotOwner
	case rep.Error != "":
		return nil, &RemoteError{Replica: rep.Replica, Device: req.Device, Msg: rep.Error}
	}
	return rep.Result, nil
}

// serveRequest answers a call forwarded by another replica, in its own
// goroutine so a slow device does not hold the others back.
func (r *Replica) serveRequest(m *nats.Msg) {
	go func() {
		var req request
		rep := reply{Replica: r.self}
		if err := json.Unmarshal(m.Data, &req); err != nil {
			rep.Error = "bad request: " + err.Error()
			r.respond(m, rep)
			return
		}
		if !r.serving(req.Device) {
			rep.NotOwner = true
			r.respond(m, rep)
			return
		}
		ctx := context.Background()
		if req.Deadline != 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, time.Unix(0, req.Deadline))
			defer cancel()
		}
		res, err := r.cfg.Sessions.Call(ctx, req.Device, req.Tool, req.Args)
		if err != nil {
			rep.Error = err.Error()
		} else {
			rep.Result = res
		}
		r.respond(m, rep)
	}()
}

func (r *Replica) respond(m *nats.Msg, rep reply) {
	b, err := json.Marshal(rep)
	if err != nil {
		b, _ = json.Marshal(reply{Replica: r.self, Error: err.Error()})
	}
	_ = m.Respond(b)
}
