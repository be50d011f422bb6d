package server

import (
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/configstore"
	"github.com/netmcp/netmcp/netproto"
)

// lockedErrorData is the data of the error of a locked candidate: the
// draft's members plus the lock holder.
type lockedErrorData struct {
	netproto.ErrorData
	// Holder holds the candidate lock: its session's handle (never the
	// session id, a bearer secret over HTTP) and its caller identity.
	Holder device.Owner `json:"holder"`
}

// lockedError maps a candidate held by another session to -32083
// Network.AccessDenied (the draft has no lock code; NETCONF's lock-denied
// is an access refusal too), retryable once the holder commits, discards
// or ends its session; data.detail and data.holder name the holder by
// identity and session handle.
func lockedError(le *configstore.LockedError) *jsonrpc.Error {
	data, _ := marshal(lockedErrorData{
		ErrorData: netproto.ErrorData{Detail: le.Error(), RetryPossible: true},
		Holder:    le.Holder,
	})
	return &jsonrpc.Error{Code: netproto.CodeAccessDenied, Message: netproto.CodeName(netproto.CodeAccessDenied), Data: data}
}
