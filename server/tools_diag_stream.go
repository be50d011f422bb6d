package server

import (
	"context"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/internal/lazyre"
)

// diagStream sends each output line of a running diagnostic to the client
// on the request's own stream: a notifications/message (logger = the tool,
// level info, data = the line) and, when the request carries a
// progressToken, a notifications/progress (progress = probes or hops done,
// total = count or maxHops).
//
// Notifications use the handler's context: in Streamable HTTP the SDK
// routes a message sent with that context onto the SSE stream of the
// request that caused it, so lines arrive before the final result.
// notifications/message follows the client's logging/setLevel (the SDK
// sends none before the client sets a level); progress does not.
type diagStream struct {
	ctx    context.Context
	ss     *mcp.ServerSession
	token  any
	logger string
	total  float64
	done   float64
	count  func(line string) float64 // probes or hops done after line, 0 if unknown
}

func newDiagStream(ctx context.Context, ss *mcp.ServerSession, token any, t diagTool, r *diag.Request) *diagStream {
	st := &diagStream{ctx: ctx, ss: ss, token: token, logger: t.name}
	switch t.tool {
	case "ping":
		st.total = float64(r.Count)
		st.count = pingCounter()
	case "traceroute", "tracepath":
		st.total = float64(r.MaxHops)
		st.count = hopCounter
	case "dig":
		st.total = 1
		st.count = func(line string) float64 {
			if strings.HasPrefix(line, ";; Query time:") || strings.HasPrefix(line, ";; connection timed out") {
				return 1
			}
			return 0
		}
	}
	return st
}

// line is the driver's onLine callback.
func (st *diagStream) line(line string) {
	if report, ok := st.ctx.Value(taskProgressKey{}).(func(string)); ok {
		report(line) // a task's status message: its latest line
	}
	if st.ss == nil {
		return
	}
	//lint:ignore SA1019 MCP logging, deprecated since 2026-07-28, carries the drafts' live output
	_ = st.ss.Log(st.ctx, &mcp.LoggingMessageParams{Logger: st.logger, Level: "info", Data: line})
	if st.token == nil || st.count == nil {
		return
	}
	n := st.count(line)
	if n <= st.done {
		return // progress only ever increases
	}
	st.done = min(n, st.total)
	_ = st.ss.NotifyProgress(st.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: st.token, Progress: st.done, Total: st.total, Message: line})
}

// pingCounter counts ping probes through diag's streaming parser: the
// highest icmp_seq answered (or reported lost or in error), then the
// transmitted count of the summary.
func pingCounter() func(string) float64 {
	ps := diag.NewPingStream()
	var done float64
	return func(line string) float64 {
		ev, err := ps.Line(line)
		if err != nil || ev == nil {
			return done
		}
		switch {
		case ev.Type == "summary" && ev.PacketsTransmitted != nil:
			done = max(done, float64(*ev.PacketsTransmitted))
		case ev.ICMPSeq != nil:
			done = max(done, float64(*ev.ICMPSeq))
		}
		return done
	}
}

// hopLine matches the hop number of a traceroute (" 3  10.0.0.1 ...") or
// tracepath (" 3:  10.0.0.1", " 1?: [LOCALHOST]") line.
var hopLine = lazyre.New(`^\s*(\d+)\??:?\s`)

func hopCounter(line string) float64 {
	m := hopLine.Re().FindStringSubmatch(line)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return float64(n)
}
