package cluster

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/netmcp/netmcp/client"
)

// MethodCallTool is the method of a forwarded tool call (Replica.Call).
const MethodCallTool = "tools/call"

// request is a call forwarded to the replica that owns the device.
type request struct {
	Device string `json:"device"`
	// Method is the MCP method (MethodCallTool when empty); Tool and Args
	// are a tool call's, Params any other method's.
	Method string          `json:"method,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	// Deadline is the caller's deadline (Unix nanoseconds, 0: none).
	Deadline int64 `json:"deadline,omitempty"`
	// Corr is the caller's correlation id, carried to the device; From
	// is the asking instance, to which the device's approval questions
	// naming Corr are relayed.
	Corr string `json:"corr,omitempty"`
	From string `json:"from,omitempty"`
}

// reply is the owner's answer to a request.
type reply struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	// Cause classifies Error so that the caller can tell a device that
	// answered with an error from one that did not answer (see Cause).
	Cause *Cause `json:"cause,omitempty"`
	// NotOwner says the replica does not serve the device (any more): the
	// caller looks the owner up again.
	NotOwner bool   `json:"not_owner,omitempty"`
	Replica  string `json:"replica"`
}

// RemoteError is an error returned by the replica that owns the device:
// the device's own error, or its session's. Its text is the owner's
// error, as a single controller would have written it; it unwraps to the
// error kinds Cause names.
type RemoteError struct {
	Replica string // the instance that ran the call
	Device  string
	Msg     string
	Cause   *Cause
}

func (e *RemoteError) Error() string { return e.Msg }

// Unwrap returns what Cause says the error is.
func (e *RemoteError) Unwrap() []error {
	if e.Cause == nil {
		return nil
	}
	return e.Cause.errors()
}

// retryBackoff is the pause before looking a device's owner up again.
const retryBackoff = 25 * time.Millisecond

// Call runs tool on device where the device is owned: locally when this
// replica serves it, otherwise on the owner through NATS request/reply.
// While the device has no owner (a lease changing hands) it waits and
// retries until ctx ends; give ctx a deadline.
func (r *Replica) Call(ctx context.Context, device, tool string, args json.RawMessage) (json.RawMessage, error) {
	return r.route(ctx, request{Device: device, Method: MethodCallTool, Tool: tool, Args: args})
}

// Request runs an MCP request other than a tool call (the methods the
// Sessions' Request takes: resources/read, prompts/list, prompts/get,
// MethodDescribe) on device where it is owned, as Call does.
func (r *Replica) Request(ctx context.Context, device, method string, params json.RawMessage) (json.RawMessage, error) {
	if method == "" || method == MethodCallTool {
		return nil, errors.New("cluster: Request: a tool call goes through Call")
	}
	return r.route(ctx, request{Device: device, Method: method, Params: params})
}

// route runs req locally or on the owner, retrying while the device has
// no owner.
func (r *Replica) route(ctx context.Context, req request) (json.RawMessage, error) {
	device := req.Device
	r.mu.Lock()
	known, stopped := r.inventory[device], r.stopped
	r.mu.Unlock()
	if stopped {
		return nil, ErrStopped
	}
	if !known {
		return nil, fmt.Errorf("%w: %s", ErrUnknownDevice, device)
	}
	if d, ok := ctx.Deadline(); ok {
		req.Deadline = d.UnixNano()
	}
	req.Corr, req.From = client.CorrelationID(ctx), r.self
	var last error
	for {
		if r.serving(device) {
			res, err := r.local(ctx, req)
			if !errors.Is(err, client.ErrReleased) {
				return res, err
			}
			// The lease is changing hands and the session is closed
			// already: look the owner up again.
			last = err
		} else if own, ok := r.Owner(device); ok && own != r.self {
			res, err := r.forward(ctx, own, req)
			if err == nil {
				return res, nil
			}
			var re *RemoteError
			if errors.As(err, &re) || errors.Is(err, ErrTooLarge) {
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

// local runs req on this replica's Sessions.
func (r *Replica) local(ctx context.Context, req request) (json.RawMessage, error) {
	if req.Method == "" || req.Method == MethodCallTool {
		return r.cfg.Sessions.Call(ctx, req.Device, req.Tool, req.Args)
	}
	return r.cfg.Sessions.Request(ctx, req.Device, req.Method, req.Params)
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
	msg, err := r.message(r.callSubject(instance), b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.Device, err)
	}
	rctx := ctx
	if _, ok := ctx.Deadline(); !ok {
		// nats.go needs a deadline on a request's context.
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, time.Minute)
		defer cancel()
	}
	m, err := r.cfg.Conn.RequestMsgWithContext(rctx, msg)
	if err != nil {
		return nil, err
	}
	data, err := msgData(m)
	if err != nil {
		return nil, fmt.Errorf("cluster: reply from %s: %w", instance, err)
	}
	var rep reply
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("cluster: reply from %s: %w", instance, err)
	}
	switch {
	case rep.NotOwner:
		return nil, errNotOwner
	case rep.Error != "":
		return nil, &RemoteError{Replica: rep.Replica, Device: req.Device, Msg: rep.Error, Cause: rep.Cause}
	}
	return rep.Result, nil
}

// serveRequest answers a call forwarded by another replica, in its own
// goroutine so a slow device does not hold the others back.
func (r *Replica) serveRequest(m *nats.Msg) {
	go func() {
		var req request
		rep := reply{Replica: r.self}
		data, err := msgData(m)
		if err == nil {
			err = json.Unmarshal(data, &req)
		}
		if err != nil {
			rep.Error = "bad request: " + err.Error()
			r.respond(m, rep)
			return
		}
		ctx := context.Background()
		if req.Deadline != 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, time.Unix(0, req.Deadline))
			defer cancel()
		}
		if req.Method == methodElicit {
			r.answerElicit(ctx, m, req) // elicit.go
			return
		}
		if req.Method == methodDescribeMany {
			res, err := r.answerDescribeMany(ctx, req.Params) // fleet.go
			if err != nil {
				rep.Error = err.Error()
			}
			rep.Result = res
			r.respond(m, rep)
			return
		}
		if !r.serving(req.Device) {
			rep.NotOwner = true
			r.respond(m, rep)
			return
		}
		if req.Corr != "" {
			ctx = client.WithCorrelationID(ctx, req.Corr)
			if req.From != "" {
				defer r.fwd.begin(req.Corr, req.From, req.Deadline)()
			}
		}
		res, err := r.local(ctx, req)
		switch {
		case errors.Is(err, client.ErrReleased):
			rep.NotOwner = true // its session closed as the lease changes hands
		case err != nil:
			rep.Error, rep.Cause = describeError(req.Device, err)
		default:
			rep.Result = res
		}
		r.respond(m, rep)
	}()
}

// compressAbove is the size of a request or reply above which it travels
// gzipped: on a network of thousands of routers a router's routing table
// is megabytes of JSON, and so is a runbook's prompts/get, which carries
// the results of the steps before it; more than NATS's default maximum
// payload (1 MiB), and they compress about tenfold.
const compressAbove = 64 << 10

// encodingHeader is the header naming a reply's encoding ("gzip"); a
// reply without it is JSON.
const encodingHeader = "Netmcp-Encoding"

// headerRoom is what a reply's headers may take of the maximum payload.
const headerRoom = 1 << 10

// ErrTooLarge is a forwarded request or its result larger than the NATS
// maximum payload even gzipped: it is not tried again.
var ErrTooLarge = errors.New("larger than the NATS maximum payload")

// message is a message of data to subject, gzipped when large; an error
// wrapping ErrTooLarge when it is larger than the connection's maximum
// payload even so.
func (r *Replica) message(subject string, data []byte) (*nats.Msg, error) {
	out := &nats.Msg{Subject: subject, Data: data}
	if len(data) > compressAbove {
		if z, err := gzipBytes(data); err == nil {
			out.Data, out.Header = z, nats.Header{encodingHeader: []string{"gzip"}}
		}
	}
	if max := r.cfg.Conn.MaxPayload(); max > 0 && int64(len(out.Data)+headerRoom) > max {
		return nil, fmt.Errorf("%d bytes, %d gzipped: %w (%d bytes): raise max_payload on the NATS servers", len(data), len(out.Data), ErrTooLarge, max)
	}
	return out, nil
}

// respond sends rep, gzipped when large. A reply larger than the
// connection's maximum payload even so is replaced by an error saying
// so: the caller learns it at once, not when its deadline ends.
func (r *Replica) respond(m *nats.Msg, rep reply) {
	b, err := json.Marshal(rep)
	if err != nil {
		b, _ = json.Marshal(reply{Replica: r.self, Error: err.Error()})
	}
	out, err := r.message(m.Reply, b)
	if err != nil {
		b, _ = json.Marshal(reply{Replica: r.self, Error: "the result is " + err.Error()})
		out = &nats.Msg{Subject: m.Reply, Data: b}
	}
	_ = m.RespondMsg(out)
}

// gzipBytes compresses b.
func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// msgData is a request's or reply's JSON, gunzipped when its header
// says so.
func msgData(m *nats.Msg) ([]byte, error) {
	switch enc := m.Header.Get(encodingHeader); enc {
	case "":
		return m.Data, nil
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(m.Data))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(zr)
	default:
		return nil, fmt.Errorf("encoding %q", enc)
	}
}
