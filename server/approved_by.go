package server

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// answerer holds who approved a call through elicitation when the client
// is a proxy that names its own caller (_meta netproto.MetaAnsweredBy: the
// controller relaying a host's answer, the web console answering in its
// user's name): the commit history records that approver.
type answerer struct {
	mu  sync.Mutex
	who string
}

type answererKey struct{}

// withAnswerer returns ctx with a holder for the approver of its call.
func withAnswerer(ctx context.Context) context.Context {
	return context.WithValue(ctx, answererKey{}, &answerer{})
}

// noteAnswerer records, in the holder of ctx, who a proxy says accepted
// an approval question (res).
func noteAnswerer(ctx context.Context, res *mcp.ElicitResult) {
	a, ok := ctx.Value(answererKey{}).(*answerer)
	if !ok || res == nil || res.Action != "accept" {
		return
	}
	if by := answeredBy(res); by != "" {
		a.mu.Lock()
		a.who = by
		a.mu.Unlock()
	}
}

// approvedComment is a commit's comment with, when a proxy named who
// approved the commit, "approved by WHO" added.
func approvedComment(ctx context.Context, comment string) string {
	a, ok := ctx.Value(answererKey{}).(*answerer)
	if !ok {
		return comment
	}
	a.mu.Lock()
	who := a.who
	a.mu.Unlock()
	switch {
	case who == "":
		return comment
	case comment == "":
		return "approved by " + who
	}
	return comment + " (approved by " + who + ")"
}
