//go:build linux

package linux

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
)

// Request converts a device diagnostic request back to diag's request
// (numeric output: host names are never resolved for hops).
func Request(r device.DiagRequest) diag.Request {
	return diag.Request{
		Tool:         r.Tool,
		Destination:  r.Destination,
		Count:        r.Count,
		IntervalMs:   int(r.Interval / time.Millisecond),
		Timeout:      int((r.Timeout + time.Second - 1) / time.Second),
		PacketSize:   r.PacketSize,
		DontFragment: r.DontFragment,
		MaxHops:      r.MaxHops,
		TTL:          r.TTL,
		IPv4:         r.IPv4,
		IPv6:         r.IPv6,
		Resolve:      r.Resolve,
		Source:       r.Source,
		QueryType:    r.QueryType,
		Server:       r.Server,
	}
}

// Diagnose runs the real tool in the host or namespace through diag.Run
// (validated again, argument vector, no shell, time and output limits),
// calling onLine with each line of standard output as it arrives. A run
// that exits with an error keeps its output and exit code, with the
// tool's standard error appended (e.g. "ping: connect: Network is
// unreachable"), for the caller to report. VRFs are not supported.
func (d *Driver) Diagnose(ctx context.Context, req device.DiagRequest, onLine func(string)) (device.DiagResult, error) {
	if req.VRF != "" {
		return device.DiagResult{}, netproto.Errorf(netproto.CodeConfigIncompatible,
			"the linux driver has no VRFs (vrf %q); use a network namespace: linux://NETNS", req.VRF)
	}
	// Raw: the caller parses the output itself (the same parser for every driver).
	res, err := diag.Run(ctx, Request(req), diag.RunOptions{Limiter: hostLimiter, Key: d.netns, OnLine: onLine, Prefix: d.prefix(), Raw: true})
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
