package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
)

// The troubleshooting draft's "tcpdump" (capture) and clear-counters. A
// capture is built from a structured filter only, never from a filter
// string: drivers that run a real capture program derive its expression
// from these fields. capture reads (viewers may run it); clear-counters
// changes device state: an operator's call, through the approval gate.

var captureInput = mustSchema(netproto.ToolCapture, `{"type":"object","properties":{
"interface":{"type":"string","minLength":1,"maxLength":64,"description":"the interface to capture on, e.g. \"GigabitEthernet0/0/0/0\""},
"protocol":{"type":"string","enum":["icmp","icmpv6","tcp","udp","arp","ospf","lldp"],"description":"only this protocol (default: all)"},
"host":{"type":"string","maxLength":64,"description":"only packets from or to this IP address"},
"src":{"type":"string","maxLength":64,"description":"only packets from this IP address"},
"dst":{"type":"string","maxLength":64,"description":"only packets to this IP address"},
"port":{"type":"integer","minimum":1,"maximum":65535,"description":"only TCP/UDP packets from or to this port"},
"direction":{"type":"string","enum":["in","out","both"],"default":"both","description":"received, sent or both"},
"durationSeconds":{"type":"number","exclusiveMinimum":0,"maximum":600,"default":5,"description":"how long to capture (a simulated device answers at once with the packets of that window)"},
"maxPackets":{"type":"integer","minimum":1,"maximum":10000,"default":100,"description":"stop after this many packets"},
"pcap":{"type":"boolean","default":true,"description":"include the capture as a base64 libpcap file"}
},"required":["interface"],"additionalProperties":false}`)

var captureOutput = mustSchema(netproto.ToolCapture, `{"type":"object","properties":{
"interface":{"type":"string"},
"count":{"type":"integer"},
"truncated":{"type":"boolean"},
"packets":{"type":"array","items":{"type":"object","properties":{
"time":{"type":"string"},"direction":{"type":"string"},"protocol":{"type":"string"},
"src":{"type":"string"},"dst":{"type":"string"},"srcPort":{"type":"integer"},"dstPort":{"type":"integer"},
"flags":{"type":"string"},"length":{"type":"integer"},"info":{"type":"string"}}}},
"summary":{"type":"string","description":"one line per packet, as tcpdump -n prints them"},
"pcap":{"type":"string","contentEncoding":"base64","description":"the capture as a libpcap file (LINKTYPE_ETHERNET)"}
},"required":["interface","count","packets","summary"]}`)

var clearCountersInput = mustSchema(netproto.ToolClearCounters, `{"type":"object","properties":{
"interface":{"type":"string","minLength":1,"maxLength":64,"description":"the interface whose counters to reset (default: every interface)"}
},"additionalProperties":false}`)

var clearCountersOutput = mustSchema(netproto.ToolClearCounters, `{"type":"object","properties":{
"status":{"type":"string"},"interface":{"type":"string"}
},"required":["status","interface"]}`)

// captureGrace is how long a capture may run past its duration (starting
// the capture program, flushing and decoding) before it is cancelled.
const captureGrace = 30 * time.Second

// captureOut is the capture tool's result; its text is tcpdump's.
type captureOut struct {
	Interface string                  `json:"interface"`
	Count     int                     `json:"count"`
	Truncated bool                    `json:"truncated,omitempty"`
	Packets   []device.CapturedPacket `json:"packets"`
	Summary   string                  `json:"summary"`
	PCAP      []byte                  `json:"pcap,omitempty"`
}

// Text is what tcpdump -n would have printed.
func (o captureOut) Text() string {
	if o.Count == 0 {
		return "0 packets captured\n"
	}
	s := o.Summary
	if o.Truncated {
		s += "(stopped after maxPackets)\n"
	}
	return s
}

// addCaptureTools registers capture and clear-counters; a driver without
// them lists them with _meta.available=false.
func (s *Server) addCaptureTools() error {
	capt, _ := s.drv.(device.Capturer)
	clr, _ := s.drv.(device.CounterClearer)
	noCapture := func() string {
		if capt == nil {
			return "the device offers no packet capture through this driver"
		}
		return ""
	}
	noClear := func() string {
		if clr == nil {
			return "the device's counters cannot be cleared through this driver"
		}
		return ""
	}
	if err := s.addTool(toolDef{name: netproto.ToolCapture, title: "Capture packets on an interface",
		description: "Capture the packets crossing one interface, filtered by protocol, address, port and direction (never a free-form filter). Returns the decoded packets, tcpdump's one-line summary of each, and the capture as a base64 libpcap file that tcpdump -r and tshark read.",
		input:       captureInput, output: captureOutput, missing: noCapture,
		run: func(ctx context.Context, c *call) (any, error) { return s.capture(ctx, c, capt) }}); err != nil {
		return err
	}
	return s.addTool(toolDef{name: netproto.ToolClearCounters, title: "Clear interface counters", write: true,
		description: "Reset the traffic counters of one interface, or of every interface, and stamp the time of the clear (counters/last-clear).",
		input:       clearCountersInput, output: clearCountersOutput, missing: noClear,
		run: func(ctx context.Context, c *call) (any, error) { return s.clearCounters(ctx, c, clr) }})
}

func (s *Server) capture(ctx context.Context, c *call, capt device.Capturer) (any, error) {
	var in struct {
		device.CaptureRequest
		Seconds float64 `json:"durationSeconds"`
		PCAP    *bool   `json:"pcap"`
	}
	if err := c.bind(&in); err != nil {
		return nil, err
	}
	req := in.CaptureRequest
	req.Duration = time.Duration(in.Seconds * float64(time.Second))
	if err := req.Check(); err != nil {
		return nil, invalidParams("%s: %v", c.tool, err)
	}
	// A capture holds the device's capture program for its duration: it
	// counts against the same concurrency limits as the diagnostics.
	release, err := s.opts.DiagLimiter.Acquire(s.owner(c.req.Session).Session)
	if err != nil {
		if errors.Is(err, diag.ErrBusy) {
			return nil, fmt.Errorf("%s refused: %v; wait for a running capture or diagnostic to finish (or cancel it) and retry", c.tool, err)
		}
		return nil, err
	}
	defer release()
	runCtx, cancel := context.WithTimeout(ctx, req.Duration+captureGrace)
	defer cancel()
	res, err := capt.Capture(runCtx, req)
	if err != nil {
		return nil, err
	}
	out := captureOut{Interface: res.Interface, Count: res.Packets, Truncated: res.Truncated, Packets: res.Records}
	if out.Packets == nil {
		out.Packets = []device.CapturedPacket{}
	}
	if len(res.Summary) > 0 {
		out.Summary = strings.Join(res.Summary, "\n") + "\n"
	}
	if in.PCAP == nil || *in.PCAP {
		out.PCAP = res.PCAP
	}
	return out, nil
}

func (s *Server) clearCounters(ctx context.Context, c *call, clr device.CounterClearer) (any, error) {
	var in struct {
		Interface string `json:"interface"`
	}
	if err := c.bind(&in); err != nil {
		return nil, err
	}
	what := in.Interface
	if what == "" {
		what = "all"
	}
	if err := s.approve(ctx, c.req.Session, c.tool, c.rawArgs(), "reset the traffic counters of "+what+" interface(s)"); err != nil {
		return nil, err
	}
	if err := clr.ClearCounters(ctx, in.Interface); err != nil {
		return nil, err
	}
	return map[string]any{"status": "cleared", "interface": what}, nil
}

// IsCounterClear tells whether a CLI command clears or resets something
// (clear counters, reset counters interface ...), matching the keyword as
// the CLIs do, by a prefix of two letters or more. network.cli.exec runs
// such a command only as clear-counters: authorized and approved as it,
// here and by a proxy in front of the device (the controller).
func IsCounterClear(cmd string) bool {
	f := strings.Fields(strings.ToLower(cmd))
	if len(f) == 0 || len(f[0]) < 2 {
		return false
	}
	return strings.HasPrefix("clear", f[0]) || strings.HasPrefix("reset", f[0])
}

// authorizeExec decides network.cli.exec: a clear or reset command needs
// the clear-counters permission too.
func (sec *Security) authorizeExec(id policy.Identity, args json.RawMessage) error {
	var in struct {
		Cmd string `json:"cmd"`
	}
	if json.Unmarshal(args, &in) != nil || !IsCounterClear(in.Cmd) {
		return nil
	}
	return sec.pol.Decide(id, policy.Action{Kind: policy.CallTool, Tool: netproto.ToolClearCounters})
}

// approveExecClear passes a clear or reset command of network.cli.exec
// through the approval gate as the write it is.
func (s *Server) approveExecClear(ctx context.Context, c *call, cmd string) error {
	if !IsCounterClear(cmd) {
		return nil
	}
	return s.approve(ctx, c.req.Session, netproto.ToolClearCounters, c.rawArgs(), "run "+cmd)
}
