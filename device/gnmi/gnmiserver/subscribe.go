package gnmiserver

import (
	"context"
	"errors"
	"io"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi/internal/wire"
	"github.com/netmcp/netmcp/yang"
)

// sub is one subscription path of a SubscribeRequest, resolved.
type sub struct {
	req     *gpb.Subscription
	pattern yang.Path // the full path, wildcards kept
	top     yang.Path // the top-level node it lies below (nil: the root)
	style   wire.Style
}

// session is one Subscribe RPC: its request and how it writes leaves.
type session struct {
	s      *Server
	list   *gpb.SubscriptionList
	subs   []sub
	prefix *gpb.Path
	// strip is the number of leading elements the prefix names, left out
	// of the paths of updates.
	strip int
	enc   gpb.Encoding
}

// Subscribe serves ONCE (the current leaves, then sync_response, then
// the end of the stream), POLL (the same for every Poll request) and
// STREAM: the current leaves (unless updates_only), sync_response, then
// per subscription ON_CHANGE (and TARGET_DEFINED) updates and deletes as
// the leaves change, or SAMPLE readings every sample_interval (only the
// changed leaves with suppress_redundant). Updates are one leaf each,
// scalars in gNMI's typed fields (string_val, uint_val...).
func (s *Server) Subscribe(stream gpb.GNMI_SubscribeServer) error {
	ctx := stream.Context()
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	list := first.GetSubscribe()
	if list == nil {
		return status.Error(codes.InvalidArgument, "the first SubscribeRequest must carry a SubscriptionList")
	}
	ss, err := s.newSession(list)
	if err != nil {
		return err
	}
	out := make(chan *gpb.SubscribeResponse, 64)
	errc := make(chan error, len(ss.subs)+2)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	send := func(r *gpb.SubscribeResponse) bool {
		select {
		case out <- r:
			return true
		case <-ctx.Done():
			return false
		}
	}
	polls := make(chan struct{}, 1)
	go func() {
		for {
			r, err := stream.Recv()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					errc <- nil // the client went away
				}
				return
			}
			if r.GetPoll() == nil {
				errc <- status.Error(codes.InvalidArgument, "after the SubscriptionList only Poll requests may be sent")
				return
			}
			if list.GetMode() != gpb.SubscriptionList_POLL {
				errc <- status.Error(codes.InvalidArgument, "Poll on a subscription that is not in POLL mode")
				return
			}
			select {
			case polls <- struct{}{}:
			default:
			}
		}
	}()
	switch list.GetMode() {
	case gpb.SubscriptionList_ONCE, gpb.SubscriptionList_POLL:
		go func() {
			for {
				if err := ss.dumpAll(ctx, send); err != nil {
					errc <- err
					return
				}
				if list.GetMode() == gpb.SubscriptionList_ONCE {
					close(out)
					return
				}
				select {
				case <-polls:
				case <-ctx.Done():
					return
				}
			}
		}()
	default:
		go ss.stream(ctx, send, errc)
	}
	for {
		select {
		case r, ok := <-out:
			if !ok {
				return nil
			}
			if err := stream.Send(r); err != nil {
				return err
			}
		case err := <-errc:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// newSession resolves the request's paths and checks its modes.
func (s *Server) newSession(list *gpb.SubscriptionList) (*session, error) {
	ss := &session{s: s, list: list, prefix: list.GetPrefix(), enc: list.GetEncoding()}
	switch ss.enc {
	case gpb.Encoding_JSON, gpb.Encoding_JSON_IETF, gpb.Encoding_PROTO:
	default:
		return nil, status.Errorf(codes.Unimplemented, "encoding %s is not supported: use JSON_IETF, JSON or PROTO", ss.enc)
	}
	if len(list.GetSubscription()) == 0 {
		return nil, status.Error(codes.InvalidArgument, "the SubscriptionList has no subscription")
	}
	ss.strip = len(ss.prefix.GetElem())
	for _, sr := range list.GetSubscription() {
		yp, style, err := s.yangPath(ss.prefix, sr.GetPath())
		if err != nil {
			return nil, err
		}
		if len(yp) > 0 && yp[0].Name == wire.Wildcard {
			return nil, status.Errorf(codes.Unimplemented, "a wildcard top-level node is not supported: subscribe to / instead")
		}
		var top yang.Path
		if len(yp) > 0 {
			top = yang.Path{{Module: yp[0].Module, Name: yp[0].Name}}
		}
		ss.subs = append(ss.subs, sub{req: sr, pattern: yp, top: top, style: style})
	}
	return ss, nil
}

// read returns the leaves of sb now.
func (ss *session) read(ctx context.Context, sb sub) ([]wire.Leaf, error) {
	v, err := ss.s.drv.Get(ctx, device.Operational, sb.top.String())
	if errors.Is(err, device.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, wire.Status(err)
	}
	var out []wire.Leaf
	wire.Flatten(sb.top, v, ss.s.schema, func(l wire.Leaf) {
		if wire.Match(sb.pattern, l.Path) {
			out = append(out, l)
		}
	})
	return out, nil
}

// dumpAll sends every subscription's leaves, then sync_response.
func (ss *session) dumpAll(ctx context.Context, send func(*gpb.SubscribeResponse) bool) error {
	for _, sb := range ss.subs {
		leaves, err := ss.read(ctx, sb)
		if err != nil {
			return err
		}
		if len(leaves) > 0 && !ss.list.GetUpdatesOnly() && !send(ss.notification(sb, leaves, nil)) {
			return ctx.Err()
		}
	}
	if !send(syncResponse()) {
		return ctx.Err()
	}
	return nil
}

func syncResponse() *gpb.SubscribeResponse {
	return &gpb.SubscribeResponse{Response: &gpb.SubscribeResponse_SyncResponse{SyncResponse: true}}
}

// stream runs a STREAM subscription: the initial leaves of every path,
// sync_response, then each path's updates until ctx is done.
func (ss *session) stream(ctx context.Context, send func(*gpb.SubscribeResponse) bool, errc chan<- error) {
	type started struct {
		w       *watcher
		release func()
	}
	watchers := make([]started, len(ss.subs))
	defer func() {
		for _, st := range watchers {
			if st.release != nil {
				st.release()
			}
		}
	}()
	for i, sb := range ss.subs {
		var leaves []wire.Leaf
		switch sb.req.GetMode() {
		case gpb.SubscriptionMode_SAMPLE:
			var err error
			if leaves, err = ss.read(ctx, sb); err != nil {
				errc <- err
				return
			}
		default: // ON_CHANGE, TARGET_DEFINED
			w, now, release, err := ss.s.hub.watch(ctx, sb.top, sb.pattern)
			if err != nil {
				errc <- wire.Status(err)
				return
			}
			watchers[i] = started{w: w, release: release}
			leaves = now
		}
		if len(leaves) > 0 && !ss.list.GetUpdatesOnly() && !send(ss.notification(sb, leaves, nil)) {
			return
		}
	}
	if !send(syncResponse()) {
		return
	}
	for i, sb := range ss.subs {
		if st := watchers[i]; st.w != nil {
			go ss.onChange(ctx, sb, st.w, send, errc)
		} else {
			go ss.sample(ctx, sb, send, errc)
		}
	}
	<-ctx.Done()
}

// onChange forwards a watcher's changes.
func (ss *session) onChange(ctx context.Context, sb sub, w *watcher, send func(*gpb.SubscribeResponse) bool, errc chan<- error) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.slow:
			errc <- status.Errorf(codes.ResourceExhausted, "the subscription to %s fell %d batches of changes behind: the client reads too slowly", wire.Text(sb.req.GetPath()), watcherBuffer)
			return
		case cs := <-w.ch:
			var upd, del []wire.Leaf
			for _, c := range cs {
				if c.deleted {
					del = append(del, c.leaf)
				} else {
					upd = append(upd, c.leaf)
				}
			}
			if !send(ss.notification(sb, upd, del)) {
				return
			}
		}
	}
}

// sample sends the subscription's leaves every sample_interval (only
// those that changed with suppress_redundant).
func (ss *session) sample(ctx context.Context, sb sub, send func(*gpb.SubscribeResponse) bool, errc chan<- error) {
	iv := time.Duration(sb.req.GetSampleInterval())
	if iv <= 0 {
		iv = ss.s.opts.PollInterval
	}
	iv = max(iv, minSampleInterval)
	t := time.NewTicker(iv)
	defer t.Stop()
	last := map[string]any{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		leaves, err := ss.read(ctx, sb)
		if err != nil {
			errc <- err
			return
		}
		if sb.req.GetSuppressRedundant() {
			kept := leaves[:0]
			for _, l := range leaves {
				k := l.Path.String()
				if old, ok := last[k]; !ok || !equalValue(old, l.Value) {
					kept = append(kept, l)
				}
				last[k] = l.Value
			}
			leaves = kept
		}
		if len(leaves) > 0 && !send(ss.notification(sb, leaves, nil)) {
			return
		}
	}
}

// notification writes leaves as updates and dels as deletes of one
// notification, in the subscription's path style and encoding.
func (ss *session) notification(sb sub, leaves, dels []wire.Leaf) *gpb.SubscribeResponse {
	n := &gpb.Notification{Timestamp: time.Now().UnixNano()}
	if ss.prefix != nil {
		n.Prefix = ss.prefix
	}
	for _, l := range leaves {
		n.Update = append(n.Update, &gpb.Update{Path: ss.path(sb, l.Path), Val: ss.value(l.Value)})
	}
	for _, l := range dels {
		n.Delete = append(n.Delete, ss.path(sb, l.Path))
	}
	return &gpb.SubscribeResponse{Response: &gpb.SubscribeResponse_Update{Update: n}}
}

// path is a leaf's gNMI path, relative to the request's prefix.
func (ss *session) path(sb sub, p yang.Path) *gpb.Path {
	g := wire.ToGNMI(p, sb.style)
	if ss.prefix != nil && (ss.strip > 0 || ss.prefix.GetOrigin() != "") {
		g.Origin = ""
		if ss.strip <= len(g.Elem) {
			g.Elem = g.Elem[ss.strip:]
		}
	}
	return g
}

// value encodes a leaf: a scalar (or leaf-list of scalars) in the typed
// fields, as gNMI wants scalars whatever the encoding; anything else (an
// empty leaf's [null]) as JSON_IETF, or JSON when that was asked.
func (ss *session) value(v any) *gpb.TypedValue {
	if ss.enc != gpb.Encoding_JSON {
		return wire.EncodeScalar(v)
	}
	if tv := wire.EncodeScalar(v); tv.GetJsonIetfVal() == nil {
		return tv
	}
	tv, err := wire.EncodeJSON(v, false)
	if err != nil {
		return wire.EncodeScalar(v)
	}
	return tv
}
