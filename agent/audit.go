package agent

import (
	"encoding/json"
	"time"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/netproto"
)

// auditCall records one D2D call in the device's audit log (the draft's
// evidence chain: every D2D call produces an audit record the controller
// can collect): inbound calls under the caller's identity, outbound ones
// under this agent's with the tool written "PEER:TOOL". Refused calls are
// recorded with their error code.
func (a *Agent) auditCall(identity, session, method, tool string, args json.RawMessage, meta map[string]any, start time.Time, err error) {
	if a.cfg.Audit == nil {
		return
	}
	r := audit.Record{Time: start.UTC(), Session: session, Identity: identity, Kind: "response", Method: method, Tool: tool,
		Arguments: args, Outcome: audit.OutcomeOK, DurationMS: float64(time.Since(start).Microseconds()) / 1000}
	if c, ok := meta[netproto.MetaCorrelationID].(string); ok && len(c) <= netproto.MaxCorrelationID {
		r.Correlation = c
	}
	if err != nil {
		r.Outcome = audit.OutcomeError
		if je := asRPCError(err); je != nil {
			r.ErrorCode = int(je.Code)
		}
	}
	if _, aerr := a.cfg.Audit.Append(r); aerr != nil {
		a.log.Error("d2d audit record lost", "err", aerr)
	}
}
