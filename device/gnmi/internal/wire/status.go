package wire

import (
	"context"
	"errors"
	"strconv"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/configstore"
	"github.com/netmcp/netmcp/netproto"
)

// ErrorDomain is the domain of the ErrorInfo detail a netmcp gNMI server
// attaches to a status made from a *netproto.Error, so that a netmcp
// client reads the draft's code back exactly.
const ErrorDomain = "netmcp.netproto"

// codeOf maps the draft's codes to gRPC codes.
var codeOf = map[int]codes.Code{
	netproto.CodeTimeout:                codes.DeadlineExceeded,
	netproto.CodeUnreachable:            codes.Unavailable,
	netproto.CodeAccessDenied:           codes.PermissionDenied,
	netproto.CodeConfigIncompatible:     codes.InvalidArgument,
	netproto.CodeRollbackFailed:         codes.Aborted,
	netproto.CodeConfirmedCommitTimeout: codes.FailedPrecondition,
	netproto.CodeRollbackNotSupported:   codes.Unimplemented,
	netproto.CodeYangSyntaxError:        codes.InvalidArgument,
	netproto.CodeHardwareFailure:        codes.Internal,
	netproto.CodeSnmpFailure:            codes.Internal,
}

// Status turns a driver's error into a gRPC status error: device.ErrNotFound
// is NotFound; a *netproto.Error keeps its code in an ErrorInfo detail
// (domain ErrorDomain) under the nearest gRPC code; a locked candidate is
// Aborted; context errors are Canceled and DeadlineExceeded; anything else
// is Internal. The message is the error's text.
func Status(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	var ne *netproto.Error
	var le *configstore.LockedError
	switch {
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	case errors.Is(err, device.ErrNotFound):
		return status.Error(codes.NotFound, err.Error())
	case errors.As(err, &le):
		return status.Error(codes.Aborted, err.Error())
	case errors.As(err, &ne):
		c, ok := codeOf[ne.Code]
		if !ok {
			c = codes.Unknown
		}
		st := status.New(c, ne.Detail)
		md := map[string]string{"code": strconv.Itoa(ne.Code)}
		if ne.Path != "" {
			md["path"] = ne.Path
		}
		if ne.RetryPossible {
			md["retry-possible"] = "true"
		}
		reason := netproto.CodeName(ne.Code)
		if reason == "" {
			reason = "Network.Error"
		}
		if d, derr := st.WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: ErrorDomain, Metadata: md}); derr == nil {
			st = d
		}
		return st.Err()
	}
	return status.Error(codes.Internal, err.Error())
}

// NetprotoOf returns the *netproto.Error a netmcp server put in st's
// details, or nil.
func NetprotoOf(st *status.Status) *netproto.Error {
	for _, d := range st.Details() {
		info, ok := d.(*errdetails.ErrorInfo)
		if !ok || info.GetDomain() != ErrorDomain {
			continue
		}
		code, err := strconv.Atoi(info.GetMetadata()["code"])
		if err != nil {
			continue
		}
		ne := netproto.Errorf(code, "%s", st.Message())
		ne.Path = info.GetMetadata()["path"]
		ne.RetryPossible = info.GetMetadata()["retry-possible"] == "true"
		return ne
	}
	return nil
}
