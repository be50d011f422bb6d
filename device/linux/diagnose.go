//go:build linux

package linux

import (
	"context"
	"errors"
	"strings"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
)

// Diagnose runs the real tool in the host or namespace through diag.Run
// (validated again, argument vector, no shell, time and output limits),
// calling onLine with each line of standard output as it arrives. A run
// that exits with an error keeps its output and exit code, with the
// tool's standard error appended (e.g. "ping: connect: Network is
// unreachable"), for the caller to report. VRFs are not supported.
func (d *Driver) Diagnose(ctx context.Context, req diag.Request, onLine func(string)) (device.DiagResult, error) {
	if req.VRF != "" {
		return device.DiagResult{}, netproto.Errorf(netproto.CodeConfigIncompatible,
			"the linux driver has no VRFs (vrf %q); use a network namespace: linux://NETNS", req.VRF)
	}
	// Raw: the caller parses the output itself (the same parser for every driver).
	res, err := diag.Run(ctx, req, diag.RunOptions{Limiter: hostLimiter, Key: d.netns, OnLine: onLine, Prefix: d.prefix(), Raw: true})
	if res == nil {
		return device.DiagResult{}, err
	}
	out := device.DiagResult{Output: res.Output, ExitCode: res.ExitCode}
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, diag.ErrToolFailed):
		if msg := strings.TrimSpace(res.Stderr); msg != "" {
			out.Output += msg + "\n"
		}
		if out.ExitCode == 0 {
			out.ExitCode = -1
		}
		return out, nil
	}
	return out, err
}
