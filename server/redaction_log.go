package server

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/netmcp/netmcp/redact"
)

// RedactingLogHandler returns a slog.Handler that masks secrets in every
// record before h sees it: the message, string attributes, errors and
// Stringers (as their masked text), in groups too. Configuration lines are
// read in dialect (huawei-vrp, cisco-iosxr, or "" for both), and every
// secret r knows is masked wherever it appears, so the server's own logs
// never carry passwords, keys or SNMP communities (MCP-NET section 9).
// Share r with the server's SecurityOptions so both know the same secrets.
func RedactingLogHandler(h slog.Handler, r *redact.Redactor, dialect string) slog.Handler {
	return &redactingHandler{h: h, m: newSecretMasker(r, dialect)}
}

type redactingHandler struct {
	h slog.Handler
	m *secretMasker
}

// Enabled implements slog.Handler.
func (rh *redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return rh.h.Enabled(ctx, l)
}

// Handle implements slog.Handler.
func (rh *redactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, rh.m.config(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(rh.attr(a))
		return true
	})
	return rh.h.Handle(ctx, out)
}

// WithAttrs implements slog.Handler.
func (rh *redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		masked[i] = rh.attr(a)
	}
	return &redactingHandler{h: rh.h.WithAttrs(masked), m: rh.m}
}

// WithGroup implements slog.Handler.
func (rh *redactingHandler) WithGroup(name string) slog.Handler {
	return &redactingHandler{h: rh.h.WithGroup(name), m: rh.m}
}

// attr masks one attribute.
func (rh *redactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, rh.m.config(v.String()))
	case slog.KindGroup:
		g := v.Group()
		out := make([]any, len(g))
		for i, x := range g {
			out[i] = rh.attr(x)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		switch t := v.Any().(type) {
		case error:
			return slog.String(a.Key, rh.m.config(t.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, rh.m.config(t.String()))
		case []byte:
			return slog.String(a.Key, rh.m.config(string(t)))
		default:
			return slog.Any(a.Key, rh.m.any(t))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

var _ slog.Handler = (*redactingHandler)(nil)
