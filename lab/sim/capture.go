package sim

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// The troubleshooting tools beyond MCP-NET on a simulated device: packet
// capture, clearing counters and the LLDP agent, all answered by the
// network model.

var (
	_ device.Capturer       = (*Driver)(nil)
	_ device.CounterClearer = (*Driver)(nil)
	_ device.LLDPAgent      = (*Driver)(nil)
)

// Capture returns the packets the model carried across one of the
// device's interfaces in the req.Duration up to now (the simulated device
// answers at once), as a libpcap file, tcpdump's lines and decoded records.
func (d *Driver) Capture(ctx context.Context, req device.CaptureRequest) (device.CaptureResult, error) {
	if err := req.Check(); err != nil {
		return device.CaptureResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "%s: %v", d.name, err)
	}
	if !d.hasInterface(req.Interface) {
		return device.CaptureResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "%s has no interface %q", d.name, req.Interface)
	}
	f := netsim.CaptureFilter{Interface: req.Interface, Protocol: req.Protocol, Port: req.Port,
		Direction: req.Direction, Window: req.Duration, MaxPackets: req.MaxPackets}
	f.Host, _ = netip.ParseAddr(req.Host) // checked by req.Check
	f.Src, _ = netip.ParseAddr(req.Src)
	f.Dst, _ = netip.ParseAddr(req.Dst)
	o, err := d.lab.net.Capture(d.name, f)
	if err != nil {
		return device.CaptureResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "%s: %v", d.name, err)
	}
	res := device.CaptureResult{Interface: req.Interface, Packets: len(o.Packets), PCAP: netsim.EncodePCAP(o.Packets),
		Summary: []string{}, Truncated: o.Truncated, Records: []device.CapturedPacket{}}
	for i := range o.Packets {
		p := &o.Packets[i]
		res.Summary = append(res.Summary, p.Summary())
		res.Records = append(res.Records, record(p))
	}
	return res, ctx.Err()
}

// record is the decoded form of a captured packet.
func record(p *netsim.CapturedPacket) device.CapturedPacket {
	r := device.CapturedPacket{Time: p.Time, Direction: p.Direction, SrcMAC: p.SrcMAC, DstMAC: p.DstMAC,
		Protocol: p.Proto, SrcPort: p.SrcPort, DstPort: p.DstPort,
		Flags: p.TCPFlags, Seq: p.Seq, Ack: p.Ack, Length: p.Length, Info: p.Info}
	if p.Src.IsValid() {
		r.Src, r.Dst = p.Src.String(), p.Dst.String()
	}
	switch p.Proto {
	case netsim.ProtoICMPName, netsim.ProtoICMP6Name:
		t, c := p.ICMPType, p.ICMPCode
		r.ICMPType, r.ICMPCode = &t, &c
		if r.Info == "" {
			r.Info = icmpInfo(p)
		}
	case netsim.ProtoARPName:
		r.Info = "ARP, Request"
		if p.ARPOp == 2 {
			r.Info = "ARP, Reply"
		}
	}
	return r
}

// icmpInfo names an ICMP message as tcpdump does.
func icmpInfo(p *netsim.CapturedPacket) string {
	v6 := p.Proto == netsim.ProtoICMP6Name
	switch {
	case !v6 && p.ICMPType == 8, v6 && p.ICMPType == 128:
		return "echo request"
	case !v6 && p.ICMPType == 0, v6 && p.ICMPType == 129:
		return "echo reply"
	case !v6 && p.ICMPType == 11, v6 && p.ICMPType == 3:
		return "time exceeded"
	case !v6 && p.ICMPType == 3, v6 && p.ICMPType == 1:
		return "unreachable"
	case v6 && p.ICMPType == 2:
		return "packet too big"
	}
	return fmt.Sprintf("type %d", p.ICMPType)
}

// hasInterface tells whether the device has an interface of that name.
func (d *Driver) hasInterface(name string) bool {
	for _, it := range d.config().dev.Interfaces {
		if it.Name == name {
			return true
		}
	}
	return false
}

// ClearCounters resets the counters of one interface, or of all of them
// when ifname is "", and logs it as the dialect does.
func (d *Driver) ClearCounters(ctx context.Context, ifname string) error {
	if ifname != "" && !d.hasInterface(ifname) {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "%s has no interface %q", d.name, ifname)
	}
	if err := d.lab.net.ClearCounters(d.name, ifname); err != nil {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "%s: %v", d.name, err)
	}
	now := d.lab.opts.Now()
	d.logMessage(now, d.cli.Syslog().CountersCleared(cmp.Or(ifname, "all interfaces")))
	return ctx.Err()
}

// LLDPNeighbors returns the neighbours the model says the device hears.
func (d *Driver) LLDPNeighbors(ctx context.Context) ([]device.LLDPNeighbor, error) {
	nbs, err := d.lab.net.LLDPNeighbors(d.name)
	if err != nil {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "%s: %v", d.name, err)
	}
	out := []device.LLDPNeighbor{}
	for _, nb := range nbs {
		n := device.LLDPNeighbor{LocalInterface: nb.LocalInterface, ChassisID: nb.ChassisID, PortID: nb.PortID,
			PortDescription: nb.PortDescription, SystemName: nb.SystemName, SystemDescription: nb.SystemDescription,
			Capabilities: nb.Capabilities, TTL: nb.TTL}
		if nb.ManagementAddress.IsValid() {
			n.ManagementAddress = nb.ManagementAddress.String()
		}
		for _, t := range nb.CustomTLVs {
			n.CustomTLVs = append(n.CustomTLVs, device.LLDPTLV{OUI: t.OUI, Subtype: t.Subtype, Value: t.Value})
		}
		out = append(out, n)
	}
	return out, ctx.Err()
}

// SetLLDPCustomTLVs replaces the organisationally specific TLVs the device
// advertises; its neighbours see them at once. They are part of the
// device's model configuration (not of its YANG running configuration,
// which has no place for them), and survive commits.
func (d *Driver) SetLLDPCustomTLVs(ctx context.Context, tlvs []device.LLDPTLV) error {
	var conf []topology.LLDPTLV
	for _, t := range tlvs {
		if len(t.Value) > device.MaxLLDPTLVValue {
			return netproto.Errorf(netproto.CodeConfigIncompatible, "%s: LLDP TLV value of %d bytes (at most %d)", d.name, len(t.Value), device.MaxLLDPTLVValue)
		}
		conf = append(conf, topology.LLDPTLV{OUI: fmt.Sprintf("%02x:%02x:%02x", t.OUI[0], t.OUI[1], t.OUI[2]),
			Subtype: int(t.Subtype), Value: hexColon(t.Value)})
	}
	d.applyMu.Lock()
	defer d.applyMu.Unlock()
	dev := d.config().dev
	l := topology.LLDP{CustomTLVs: conf}
	if dev.LLDP != nil {
		l.Disabled = dev.LLDP.Disabled
	}
	dev.LLDP = &l
	if err := d.lab.applyDevice(dev); err != nil {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "%s: the network model refuses the LLDP TLVs: %v", d.name, err)
	}
	d.mu.Lock()
	d.cur.dev = dev
	d.mu.Unlock()
	return ctx.Err()
}

func hexColon(b []byte) string {
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = fmt.Sprintf("%02x", c)
	}
	return strings.Join(parts, ":")
}
