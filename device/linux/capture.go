//go:build linux

package linux

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
)

// Captures run the real tcpdump in the host or namespace, without a
// shell: its arguments and its filter expression are built here from the
// structured request, word by word, so no caller text is ever parsed as
// a filter or an option. The capture is written to tcpdump's stdout as a
// libpcap file, then read back by tcpdump -r for the text lines, and
// decoded here for the records.

var _ device.Capturer = (*Driver)(nil)

// captureStop is how long tcpdump gets to flush after SIGINT.
const captureStop = 3 * time.Second

// maxCaptureBytes bounds the pcap a capture returns.
const maxCaptureBytes = 32 << 20

// ifNameRE is what a Linux interface name may be (IFNAMSIZ 16, no '/',
// no white space, no ':' of alias labels).
var ifNameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.@-]{0,14}$`)

// CaptureArgs returns tcpdump's argument vector for a checked request,
// writing the pcap to stdout.
func CaptureArgs(req device.CaptureRequest) []string {
	argv := []string{"tcpdump", "-i", req.Interface, "-n", "-U", "-w", "-", "-c", strconv.Itoa(req.MaxPackets)}
	switch req.Direction {
	case device.DirectionIn:
		argv = append(argv, "-Q", "in")
	case device.DirectionOut:
		argv = append(argv, "-Q", "out")
	}
	return append(argv, captureFilter(req)...)
}

// captureFilter is the BPF expression of a request, one word per argument.
func captureFilter(req device.CaptureRequest) []string {
	var terms [][]string
	switch req.Protocol {
	case "":
	case "icmpv6":
		terms = append(terms, []string{"icmp6"})
	case "ospf":
		terms = append(terms, []string{"ip", "proto", "89"})
	case "lldp":
		terms = append(terms, []string{"ether", "proto", "0x88cc"})
	default: // icmp, tcp, udp, arp
		terms = append(terms, []string{req.Protocol})
	}
	if req.Host != "" {
		terms = append(terms, []string{"host", req.Host})
	}
	if req.Src != "" {
		terms = append(terms, []string{"src", "host", req.Src})
	}
	if req.Dst != "" {
		terms = append(terms, []string{"dst", "host", req.Dst})
	}
	if req.Port != 0 {
		terms = append(terms, []string{"port", strconv.Itoa(req.Port)})
	}
	var out []string
	for i, t := range terms {
		if i > 0 {
			out = append(out, "and")
		}
		out = append(out, t...)
	}
	return out
}

// Capture runs tcpdump on an interface of the host or namespace for
// req.Duration or until req.MaxPackets packets.
func (d *Driver) Capture(ctx context.Context, req device.CaptureRequest) (device.CaptureResult, error) {
	if err := req.Check(); err != nil {
		return device.CaptureResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "%v", err)
	}
	if !ifNameRE.MatchString(req.Interface) {
		return device.CaptureResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "capture: %q is not a Linux interface name", req.Interface)
	}
	if _, err := exec.LookPath("tcpdump"); err != nil {
		return device.CaptureResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "capture: tcpdump is not installed on this host (apt-get install tcpdump)")
	}
	mac, err := d.linkMAC(ctx, req.Interface)
	if err != nil {
		return device.CaptureResult{}, err
	}
	argv := append(d.prefix(), CaptureArgs(req)...)
	var stdout, stderr diag.LimitedBuffer
	stdout.Max, stderr.Max = maxCaptureBytes, 64<<10
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", "TZ=UTC"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return device.CaptureResult{}, fmt.Errorf("linux: capture: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(req.Duration)
	defer timer.Stop()
	var runErr error
	stopped := false
	select {
	case runErr = <-done: // the packet count was reached, or tcpdump failed
	case <-timer.C:
		stopped = true
	case <-ctx.Done():
		stopped = true
	}
	if stopped {
		// SIGINT: tcpdump flushes what it captured and exits.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		select {
		case runErr = <-done:
		case <-time.After(captureStop):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			runErr = <-done
		}
	}
	if ctx.Err() != nil {
		return device.CaptureResult{}, ctx.Err()
	}
	if stdout.Over {
		return device.CaptureResult{}, fmt.Errorf("linux: capture on %s: more than %d bytes", req.Interface, maxCaptureBytes)
	}
	pcap := stdout.Bytes()
	if len(pcap) < 24 {
		msg := strings.TrimSpace(stderr.String())
		if runErr != nil {
			return device.CaptureResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "capture on %s: tcpdump: %v: %s", req.Interface, runErr, msg)
		}
		return device.CaptureResult{}, fmt.Errorf("linux: capture on %s: tcpdump wrote no capture: %s", req.Interface, msg)
	}
	res := device.CaptureResult{Interface: req.Interface, PCAP: pcap, Summary: []string{}}
	recs, err := DecodePCAP(pcap, mac)
	if err != nil {
		return device.CaptureResult{}, fmt.Errorf("linux: capture on %s: %v", req.Interface, err)
	}
	res.Records, res.Packets = recs, len(recs)
	res.Truncated = res.Packets >= req.MaxPackets
	if res.Summary, err = d.summary(pcap); err != nil {
		return device.CaptureResult{}, err
	}
	return res, nil
}

// linkMAC returns the interface's MAC (to tell sent from received
// packets), failing clearly when there is no such interface.
func (d *Driver) linkMAC(ctx context.Context, ifname string) (string, error) {
	argv := append(d.prefix(), "ip", "-j", "link", "show", "dev", ifname)
	ctx, cancel := context.WithTimeout(ctx, ExecTimeout)
	defer cancel()
	cmd := diag.Command(ctx, argv)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "capture: no interface %q here: %s", ifname, strings.TrimSpace(errb.String()))
	}
	var links []struct {
		Address string `json:"address"`
	}
	if err := json.Unmarshal(out.Bytes(), &links); err != nil || len(links) == 0 {
		return "", fmt.Errorf("linux: ip link show %s: unreadable output", ifname)
	}
	return links[0].Address, nil
}

// summary is tcpdump's reading of the capture: one line per packet.
func (d *Driver) summary(pcap []byte) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), ExecTimeout)
	defer cancel()
	cmd := diag.Command(ctx, []string{"tcpdump", "-n", "-S", "-r", "-"})
	cmd.Env = append(cmd.Env, "TZ=UTC")
	cmd.Stdin = bytes.NewReader(pcap)
	var out bytes.Buffer
	var errb diag.LimitedBuffer
	errb.Max = 64 << 10
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, fmt.Errorf("linux: tcpdump -r: %v", err)
		}
		// A capture cut short may end in a partial record: keep the lines read.
	}
	lines := []string{}
	for _, l := range strings.Split(out.String(), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}
