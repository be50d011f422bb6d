package gnmi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi/internal/wire"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// Mode is how a subscription reports.
type Mode int

// Subscription modes.
const (
	// ModeOnChange sends the leaves once, then each change as it happens.
	ModeOnChange Mode = iota
	// ModeSample sends the leaves every Subscription.Interval.
	ModeSample
	// ModeOnce sends the leaves once; Watch then returns.
	ModeOnce
)

// Subscription is what Watch subscribes to.
type Subscription struct {
	// Paths are YANG paths; a list without keys (or a key '*') selects
	// every entry: /openconfig-interfaces:interfaces/interface/state/oper-status.
	Paths []string
	Mode  Mode
	// Interval is the sample interval of ModeSample (0: the target's).
	Interval time.Duration
	// UpdatesOnly leaves out the initial leaves (ModeOnChange).
	UpdatesOnly bool
	// Reconnect keeps a stream subscription going when the target drops
	// it: Watch dials again (backing off up to 5 s), and once the target
	// has sent the leaves again, delivers only what changed meanwhile.
	Reconnect bool
}

// Update is one leaf of a subscription: its value, or its deletion.
type Update struct {
	// Path is the leaf's YANG instance path.
	Path    string
	Value   any
	Deleted bool
	// Time is the target's timestamp.
	Time time.Time
}

// Batch is what one notification of the target carried, or (Sync) the end
// of the initial leaves.
type Batch struct {
	Updates []Update
	Sync    bool
}

// maxBackoff bounds the wait between two reconnections.
const maxBackoff = 5 * time.Second

// Watch subscribes to s and calls fn with each batch, in order, from one
// goroutine. ModeOnce returns nil after the initial leaves. Stream modes
// run until ctx is done (then ctx's error); without s.Reconnect a target
// that drops the stream ends Watch with -32082 (retryable). A path the
// target does not support, a refused certificate or credentials end it
// with the driver's error, reconnecting or not.
func (d *Driver) Watch(ctx context.Context, s Subscription, fn func(Batch)) error {
	req, hint, err := d.subscribeRequest(s)
	if err != nil {
		return err
	}
	known := map[string]any{} // the leaves seen, for a resynchronisation
	backoff := 100 * time.Millisecond
	resync := false // a stream has delivered its initial leaves: later ones are compared with known
	for {
		synced, err := d.stream(ctx, req, hint, s, known, resync, fn)
		resync = resync || synced
		if cerr := ctxDone(ctx, err); cerr != nil {
			return cerr
		}
		if s.Mode == ModeOnce && err == nil {
			return nil
		}
		if err == nil {
			err = io.EOF
		}
		if permanent(err) {
			return d.fail(ctx, "Subscribe", err)
		}
		if !s.Reconnect {
			return netproto.Errorf(netproto.CodeUnreachable, "gnmi %s: the target dropped the subscription stream: %v", d.cfg.Address(), err).Retryable()
		}
		if synced {
			backoff = 100 * time.Millisecond
		}
		d.log.Warn("gnmi: subscription stream lost; reconnecting", "device", d.cfg.Address(), "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// permanent reports whether a stream error would recur on reconnecting.
func permanent(err error) bool {
	st, ok := status.FromError(err)
	if !ok {
		return false
	}
	switch st.Code() {
	case codes.InvalidArgument, codes.Unimplemented, codes.NotFound, codes.PermissionDenied,
		codes.Unauthenticated, codes.FailedPrecondition, codes.OutOfRange:
		return true
	}
	return tlsFailure(st)
}

// subscribeRequest builds the request of s, and the resolver hint: the
// modules of its paths' top-level nodes.
func (d *Driver) subscribeRequest(s Subscription) (*gpb.SubscribeRequest, yang.Path, error) {
	if len(s.Paths) == 0 {
		return nil, nil, netproto.Errorf(netproto.CodeYangSyntaxError, "gnmi: a subscription needs a path")
	}
	list := &gpb.SubscriptionList{Encoding: d.enc, UpdatesOnly: s.UpdatesOnly, Mode: gpb.SubscriptionList_STREAM}
	if s.Mode == ModeOnce {
		list.Mode = gpb.SubscriptionList_ONCE
	}
	var hint yang.Path
	for _, ps := range s.Paths {
		p, err := device.ParsePath(ps)
		if err != nil {
			return nil, nil, err
		}
		if len(p) > 0 {
			hint = append(hint, yang.PathElem{Module: p[0].Module, Name: p[0].Name})
		}
		sub := &gpb.Subscription{Path: wire.ToGNMI(p, wire.OriginStyle), Mode: gpb.SubscriptionMode_ON_CHANGE}
		if s.Mode == ModeSample {
			sub.Mode = gpb.SubscriptionMode_SAMPLE
			sub.SampleInterval = uint64(s.Interval)
		}
		list.Subscription = append(list.Subscription, sub)
	}
	return &gpb.SubscribeRequest{Request: &gpb.SubscribeRequest_Subscribe{Subscribe: list}}, hint, nil
}

// hintResolver resolves bare top-level names from the subscription's own
// paths first.
func (d *Driver) hintResolver(hint yang.Path) wire.Resolver {
	return func(origin, name string) (string, bool) {
		for _, e := range hint {
			if e.Name == name && (origin == "" || origin == wire.OriginOpenConfig || origin == e.Module) {
				return e.Module, true
			}
		}
		d.topMu.Lock()
		defer d.topMu.Unlock()
		return d.resolveLocked(origin, name)
	}
}

// stream runs one Subscribe RPC. On a reconnection (resync) the initial
// leaves are held back and compared with known at sync_response: only
// what changed is delivered. synced reports that the initial leaves
// arrived. A stream the target ends cleanly returns a nil error.
func (d *Driver) stream(ctx context.Context, req *gpb.SubscribeRequest, hint yang.Path, s Subscription, known map[string]any, resync bool, fn func(Batch)) (synced bool, err error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := d.client.Subscribe(sctx)
	if err != nil {
		return false, err
	}
	if err := st.Send(req); err != nil {
		_, rerr := st.Recv() // the reason is in the stream's status
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return false, rerr
		}
		return false, err
	}
	resolve := d.hintResolver(hint)
	held := map[string]Update{}
	for {
		resp, err := st.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if s.Mode == ModeOnce && !synced {
					return false, fmt.Errorf("the target ended the ONCE subscription before its sync_response")
				}
				return synced, nil
			}
			return synced, err
		}
		switch r := resp.GetResponse().(type) {
		case *gpb.SubscribeResponse_SyncResponse:
			if synced {
				continue
			}
			synced = true
			if resync {
				fn(Batch{Updates: resyncDiff(known, held)})
				held = nil
			} else {
				fn(Batch{Sync: true})
			}
			if s.Mode == ModeOnce {
				return true, nil
			}
		case *gpb.SubscribeResponse_Update:
			b, err := d.batch(r.Update, resolve)
			if err != nil {
				return synced, err
			}
			if resync && !synced {
				for _, u := range b.Updates {
					held[u.Path] = u
				}
				continue
			}
			for _, u := range b.Updates {
				if u.Deleted {
					delete(known, u.Path)
				} else if s.Mode != ModeOnce {
					known[u.Path] = u.Value
				}
			}
			if len(b.Updates) > 0 {
				fn(b)
			}
		case *gpb.SubscribeResponse_Error:
			//lint:ignore SA1019 older targets still report an error in the deprecated error field
			return synced, status.Error(codes.Code(r.Error.GetCode()), r.Error.GetMessage())
		}
	}
}

// resyncDiff returns what changed between the leaves known before a
// reconnection and those the target sent again (held), and makes known
// the new set.
func resyncDiff(known map[string]any, held map[string]Update) []Update {
	var out []Update
	now := time.Now()
	for k, u := range held {
		if u.Deleted {
			continue
		}
		if old, ok := known[k]; !ok || !reflect.DeepEqual(old, u.Value) {
			out = append(out, u)
		}
	}
	for k := range known {
		if u, ok := held[k]; !ok || u.Deleted {
			out = append(out, Update{Path: k, Deleted: true, Time: now})
			delete(known, k)
		}
	}
	for k, u := range held {
		if !u.Deleted {
			known[k] = u.Value
		}
	}
	return out
}

// batch converts a notification.
func (d *Driver) batch(n *gpb.Notification, resolve wire.Resolver) (Batch, error) {
	t := time.Unix(0, n.GetTimestamp())
	var b Batch
	for _, u := range n.GetUpdate() {
		p, _, err := wire.FromGNMI(wire.Join(n.GetPrefix(), u.GetPath()), resolve)
		if err != nil {
			return b, err
		}
		v, err := wire.Decode(u.GetVal())
		if err != nil {
			return b, err
		}
		b.Updates = append(b.Updates, Update{Path: p.String(), Value: wire.Unqualify(v, wire.Module(p)), Time: t})
	}
	for _, dp := range n.GetDelete() {
		p, _, err := wire.FromGNMI(wire.Join(n.GetPrefix(), dp), resolve)
		if err != nil {
			return b, err
		}
		b.Updates = append(b.Updates, Update{Path: p.String(), Deleted: true, Time: t})
	}
	return b, nil
}

// WatchChanges implements device.Watcher with a Watch in ModeOnChange that
// reconnects: the leaves the target sends before its first sync_response
// are its current data, not changes, and are not reported.
func (d *Driver) WatchChanges(ctx context.Context, paths []string, fn func(device.Changes)) error {
	synced := false
	return d.Watch(ctx, Subscription{Paths: paths, Mode: ModeOnChange, Reconnect: true}, func(b Batch) {
		if b.Sync {
			synced = true
			fn(device.Changes{Synced: true})
			return
		}
		if !synced || len(b.Updates) == 0 {
			return
		}
		c := device.Changes{Paths: make([]string, len(b.Updates))}
		for i, u := range b.Updates {
			c.Paths[i] = u.Path
		}
		fn(c)
	})
}
