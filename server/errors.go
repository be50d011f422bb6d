package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/configstore"
	"github.com/netmcp/netmcp/netproto"
)

// RPCError converts an error to the JSON-RPC error the client sees:
//   - *netproto.Error: its code, the draft's name as message, and data
//     {detail, path, retryPossible} (MCP-NET 7.2);
//   - *jsonrpc.Error: unchanged;
//   - context.DeadlineExceeded: -32081 Network.Timeout, retryable;
//   - device.ErrNotFound: -32602 with the detail;
//   - anything else: nil (the caller reports it as a tool error).
//
// The result is never wrapped: the SDK keeps the code and data only of an
// unwrapped *jsonrpc.Error.
func RPCError(err error) *jsonrpc.Error {
	var ne *netproto.Error
	var je *jsonrpc.Error
	var le *configstore.LockedError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &le):
		return lockedError(le)
	case errors.As(err, &je):
		return je
	case errors.As(err, &ne):
		data, _ := marshal(ne.ErrorData)
		return &jsonrpc.Error{Code: int64(ne.Code), Message: ne.Message(), Data: data}
	case errors.Is(err, context.DeadlineExceeded):
		return RPCError(netproto.Errorf(netproto.CodeTimeout, "the device did not answer in time: %v", err).Retryable())
	case errors.Is(err, device.ErrNotFound):
		return invalidParams("%v", err)
	}
	return nil
}

// invalidParams returns a -32602 error with a specific message.
func invalidParams(format string, args ...any) *jsonrpc.Error {
	msg := fmt.Sprintf(format, args...)
	data, _ := marshal(netproto.ErrorData{Detail: msg})
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg, Data: data}
}

// rpc converts err for returning from a handler: a known error becomes its
// unwrapped *jsonrpc.Error, any other passes unchanged.
func rpc(err error) error {
	if e := RPCError(err); e != nil {
		return e
	}
	return err
}

// accessDenied is the error of a write on a read-only server.
func accessDenied(what string) error {
	return RPCError(netproto.Errorf(netproto.CodeAccessDenied, "%s refused: this server is read-only", what))
}

// unavailable is the error, of code (usually -32084
// Network.ConfigIncompatible), of a tool the device cannot serve (MCP-NET 4).
func unavailable(code int, tool, why string) error {
	return RPCError(netproto.Errorf(code, "%s is not available on this device: %s", tool, why))
}

// marshal is json.Marshal without HTML escaping ("VLAN 4095 > maximum
// 4094" stays readable on the wire).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
