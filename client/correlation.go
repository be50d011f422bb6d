package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
)

// MetaCorrelationID is the _meta key of the correlation id every request
// carries (see the package documentation); device servers record it in
// their audit trail.
const MetaCorrelationID = netproto.MetaCorrelationID

type correlationKey struct{}

// WithCorrelationID returns a context whose requests carry id in their
// _meta[MetaCorrelationID]. An empty id removes nothing: requests then
// carry the id of the parent context, if any.
func WithCorrelationID(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, correlationKey{}, id)
}

// CorrelationID returns the correlation id of ctx ("" when none).
func CorrelationID(ctx context.Context) string {
	id, _ := ctx.Value(correlationKey{}).(string)
	return id
}

// NewCorrelationID returns a fresh random id ("c-" and 24 hex digits).
func NewCorrelationID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "c-" + hex.EncodeToString(b[:])
}

// correlationMiddleware adds the context's correlation id to the _meta of
// every outgoing request and notification whose params can carry one.
// An id already present in the params is kept.
func correlationMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		id := CorrelationID(ctx)
		if id == "" {
			return next(ctx, method, req)
		}
		p := req.GetParams()
		if p == nil {
			return next(ctx, method, req)
		}
		if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
			return next(ctx, method, req)
		}
		if _, ok := p.GetMeta()[MetaCorrelationID]; !ok {
			m := maps.Clone(p.GetMeta()) // never write into the caller's map
			if m == nil {
				m = map[string]any{}
			}
			m[MetaCorrelationID] = id
			p.SetMeta(m)
		}
		return next(ctx, method, req)
	}
}
