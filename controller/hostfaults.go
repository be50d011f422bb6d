package controller

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/netproto"
)

// hostChecks compares what each host served over MCP shows of itself
// (addresses, netmask, gateway, routes, MAC, reachability) with its
// router's LAN, and names the host faults it finds. It returns the hosts
// it found a cause on, which the ping-based host sweep then leaves alone.
func (r *run) hostChecks(n *network) map[string]bool {
	done := map[string]bool{}
	seen := map[string]bool{}
	for _, h := range n.Hosts {
		hv := n.HostViews[h.Host.Name]
		if hv == nil || seen[h.Host.Name] {
			continue
		}
		seen[h.Host.Name] = true
		d := n.Devices[h.Router.Device]
		it := d.Iface(h.Router.Iface)
		if it == nil {
			continue
		}
		var lan netip.Prefix
		for _, p := range it.Addrs {
			if p.Contains(h.Addr) {
				lan = p
			}
		}
		hostEv := func(key, format string, args ...any) Evidence {
			tool := netproto.ToolYangGet
			if key == callResolv || key == callLink {
				tool = netproto.ToolCLIExec
			}
			return r.ev(hv.Calls[key], hv.Name, tool, format, args...)
		}
		portEv := r.ev(d.Calls[pathInterfaces], d.Name, netproto.ToolYangGet, "%s admin %s, oper %s, %s", it.Name, upDown(it.AdminUp), it.OperStatus, lan)
		add := func(name, summary, fix string, ev ...Evidence) {
			c := newCause(name, []string{hv.Name}, h.Router.Device+":"+h.Router.Iface, summary, append(ev, portEv)...)
			c.Fix = fix
			r.rep.addCause(c)
			done[hv.Name] = true
		}
		if hv.Err != "" {
			if it.AdminUp && !it.OperUp {
				add("host_crash", fmt.Sprintf("Host %s is down: it answers nothing (%s) and the port %s:%s toward it is down.", hv.Name, hv.Err, d.Name, it.Name),
					fmt.Sprintf("Bring host %s back up.", hv.Name), hostEv(pathInterfaces, "no answer: %s", hv.Err))
			}
			continue
		}
		addrs := hv.Addrs4()
		addrWords := fmt.Sprint(addrs)
		if len(addrs) == 0 {
			add("host_missing_ip", fmt.Sprintf("Host %s has no IPv4 address on its interfaces; its router %s expects it at %s on %s.", hv.Name, d.Name, h.Addr, lan.Masked()),
				fmt.Sprintf("Configure %s/%d on host %s.", h.Addr, lan.Bits(), hv.Name), hostEv(pathInterfaces, "IPv4 addresses: none"))
			continue
		}
		conflict := false
		for _, p := range addrs {
			if lan.IsValid() && !lan.Masked().Contains(p.Addr()) {
				// An address held twice conflicts only on one segment
				// (ARP); one outside the host's LAN is a wrong address.
				continue
			}
			if r.ownsAddr(hv.Name, p.Addr()) {
				// The inventory gives the host this address: whoever
				// else holds it took it, and is the one named.
				continue
			}
			owner := ""
			if od, _ := n.Owner(p.Addr()); od != nil {
				owner = od.Name
			}
			for _, on := range sortedKeys(n.HostViews) {
				if o := n.HostViews[on]; on != hv.Name && o.Err == "" && owner == "" {
					for _, q := range o.Addrs4() {
						if q.Addr() == p.Addr() {
							owner = on
						}
					}
				}
			}
			if owner != "" {
				add("host_ip_conflict", fmt.Sprintf("Host %s uses %s, an address %s already has: the two answer ARP for it.", hv.Name, p.Addr(), owner),
					fmt.Sprintf("Give host %s its own address (%s) instead of %s's.", hv.Name, h.Addr, owner), hostEv(pathInterfaces, "IPv4 addresses %s", addrWords))
				conflict = true
				break
			}
		}
		if conflict {
			continue
		}
		inLAN, sameLen := false, false
		for _, p := range addrs {
			if lan.IsValid() && lan.Masked().Contains(p.Addr()) {
				inLAN, sameLen = true, p.Bits() == lan.Bits()
			}
		}
		switch {
		case lan.IsValid() && !inLAN:
			add("host_incorrect_ip", fmt.Sprintf("Host %s has %s, outside its LAN %s on %s:%s: it cannot talk to its router.", hv.Name, addrWords, lan.Masked(), d.Name, it.Name),
				fmt.Sprintf("Configure %s/%d on host %s.", h.Addr, lan.Bits(), hv.Name), hostEv(pathInterfaces, "IPv4 addresses %s", addrWords))
			continue
		case lan.IsValid() && !sameLen:
			add("host_incorrect_netmask", fmt.Sprintf("Host %s has %s but its LAN on %s:%s is %s: the netmask differs.", hv.Name, addrWords, d.Name, it.Name, lan.Masked()),
				fmt.Sprintf("Set host %s's prefix length to /%d.", hv.Name, lan.Bits()), hostEv(pathInterfaces, "IPv4 addresses %s", addrWords))
			continue
		}
		if gw, ok := hv.Gateway(); !ok || gw != h.Router.Addr {
			add("host_incorrect_gateway", fmt.Sprintf("Host %s's default gateway is %v, not its router %s's address %s on the LAN.", hv.Name, gwWords(gw, ok), d.Name, h.Router.Addr),
				fmt.Sprintf("Set host %s's default gateway to %s.", hv.Name, h.Router.Addr), hostEv(pathRouting, "default route via %s", gwWords(gw, ok)))
			continue
		}
		for _, rt := range hv.Routes {
			if rt.Discard {
				add("host_static_blackhole", fmt.Sprintf("Host %s has a blackhole route to %s: it drops its own traffic there.", hv.Name, rt.Prefix),
					fmt.Sprintf("Remove the blackhole route %s from host %s.", rt.Prefix, hv.Name), hostEv(pathRouting, "route %s blackhole", rt.Prefix))
				break
			}
		}
		if done[hv.Name] {
			continue
		}
		if other, ok := r.macConflict(n, hv); ok {
			add("mac_address_conflict", fmt.Sprintf("Host %s uses MAC %s, which %s also has on its LAN: frames for one go to the other.", hv.Name, hv.MAC, other),
				fmt.Sprintf("Give host %s its own MAC address.", hv.Name), hostEv(callLink, "MAC %s", hv.MAC))
		} else if macTaken(n, hv) {
			// Another host took hv's own MAC (named there): that explains
			// what hv's pings show, so the ping sweep leaves hv alone.
			done[hv.Name] = true
		}
	}
	return done
}

// ownsAddr tells whether the inventory gives host name the address a.
func (r *run) ownsAddr(name string, a netip.Addr) bool {
	for _, h := range r.c.Hosts {
		if h.Name == name && slices.Contains(h.Addrs, a) {
			return true
		}
	}
	return false
}

func gwWords(gw netip.Addr, ok bool) string {
	if !ok {
		return "none"
	}
	return gw.String()
}

// macConflict tells whether a host's MAC is that of another device of
// its LAN: another host's, or a neighbour's in its own ARP table (its
// gateway's).
func (r *run) macConflict(n *network, hv *hostView) (string, bool) {
	if hv.MAC == "" {
		return "", false
	}
	for _, on := range sortedKeys(n.HostViews) {
		if o := n.HostViews[on]; on != hv.Name && o.MAC != "" && sameMAC(o.MAC, hv.MAC) {
			if hv.PermMAC == "" && o.PermMAC != "" {
				// hv runs on its own hardware address and the other
				// host took it (its own is another): the other is the
				// one in the wrong.
				continue
			}
			return on, true
		}
	}
	for _, it := range hv.Ifaces {
		for _, a := range it.ARP {
			if sameMAC(a.MAC, hv.MAC) {
				if o := n.HostViews[n.deviceAt(a.IP)]; o != nil && o != hv && hv.PermMAC == "" && o.PermMAC != "" {
					continue // the neighbour took hv's own address
				}
				who := a.IP.String()
				if d, _ := n.Owner(a.IP); d != nil {
					who = d.Name + " (" + a.IP.String() + ")"
				}
				return who, true
			}
		}
	}
	return "", false
}

// macTaken tells whether hv runs on its own hardware address and another
// host shows the same MAC changed from its own (it took hv's).
func macTaken(n *network, hv *hostView) bool {
	if hv.MAC == "" || hv.PermMAC != "" {
		return false
	}
	for _, o := range n.HostViews {
		if o != hv && o.PermMAC != "" && sameMAC(o.MAC, hv.MAC) {
			return true
		}
	}
	return false
}

func sameMAC(a, b string) bool {
	norm := func(s string) string {
		return strings.NewReplacer(":", "", "-", "", ".", "").Replace(strings.ToLower(s))
	}
	return a != "" && norm(a) == norm(b)
}

// callLink is the key of the `ip -j link` call in hostView.Calls.
const callLink = "ip -j link"

// parseIPLink returns the MAC of the first non-loopback link of `ip -j
// link`, and its permanent address when the link shows one (permaddr: the
// MAC was changed from the hardware's).
func parseIPLink(text string) (mac, perm string) {
	var links []struct {
		Name     string `json:"ifname"`
		Type     string `json:"link_type"`
		Address  string `json:"address"`
		PermAddr string `json:"permaddr"`
	}
	if json.Unmarshal([]byte(text), &links) != nil {
		return "", ""
	}
	for _, l := range links {
		if l.Type != "loopback" && l.Address != "" {
			if sameMAC(l.PermAddr, l.Address) {
				l.PermAddr = ""
			}
			return l.Address, l.PermAddr
		}
	}
	return "", ""
}

// hostLinkMTUs compares the two ends of every router-host link, the
// host's own port against its router's, as linkState compares the ends
// of the links between routers. Where they differ it names the end that
// is odd: one running below its own configuration with the configured
// MTU its peer's (link_fragmentation_disabled), else one whose running
// MTU is not its configured one, else the one the other hosts of the
// same LAN disagree with, else the one whose MTU is the rarer across the
// network's links and host ports (the smaller on a tie).
func (r *run) hostLinkMTUs(n *network) {
	usual := map[int]int{}
	for _, x := range n.Links {
		for _, e := range []end{x.A, x.B} {
			if it := n.Devices[e.Device].Iface(e.Iface); it != nil && it.MTU > 0 {
				usual[it.MTU]++
			}
		}
	}
	ports := map[string]*ifaceView{} // each host's port on its LAN
	for _, h := range n.Hosts {
		if _, ok := ports[h.Host.Name]; ok {
			continue
		}
		hi := hostPort(n.HostViews[h.Host.Name], h.Addr)
		ports[h.Host.Name] = hi
		if hi != nil && hi.MTU > 0 {
			usual[hi.MTU]++
		}
	}
	done := map[string]bool{}
	for _, h := range n.Hosts {
		hi, rd := ports[h.Host.Name], n.Devices[h.Router.Device]
		if done[h.Host.Name] || hi == nil || rd == nil {
			continue
		}
		done[h.Host.Name] = true
		rp := rd.Iface(h.Router.Iface)
		if rp == nil || rp.MTU == 0 || hi.MTU == 0 || rp.MTU == hi.MTU || !rp.OperUp || !hi.OperUp {
			continue
		}
		// The other hosts of the LAN side with the router or with this host.
		withRouter, withHost := 0, 0
		for _, o := range n.Hosts {
			if o.Host.Name == h.Host.Name || o.Router != h.Router {
				continue
			}
			if oi := ports[o.Host.Name]; oi != nil {
				switch oi.MTU {
				case rp.MTU:
					withRouter++
				case hi.MTU:
					withHost++
				}
			}
		}
		hv := n.HostViews[h.Host.Name]
		he := end{Device: h.Host.Name, Iface: hi.Name, Addr: h.Addr}
		l := link{A: h.Router, B: he}
		hostOdd := false
		switch {
		case belowConfig(hi, rp):
			hostOdd = true
		case belowConfig(rp, hi):
		case offConfig(hi) && !offConfig(rp):
			hostOdd = true
		case offConfig(rp) && !offConfig(hi):
		case withRouter != withHost:
			hostOdd = withRouter > withHost
		case usual[hi.MTU] != usual[rp.MTU]:
			hostOdd = usual[hi.MTU] < usual[rp.MTU]
		default:
			hostOdd = hi.MTU < rp.MTU
		}
		odd, oi, pi := h.Router, rp, hi
		if hostOdd {
			odd, oi, pi = he, hi, rp
		}
		ev := []Evidence{
			r.ev(rd.Calls[pathInterfaces], rd.Name, netproto.ToolYangGet, "%s MTU %d (configured %d)", rp.Name, rp.MTU, rp.ConfigMTU),
			r.ev(hv.Calls[pathInterfaces], hv.Name, netproto.ToolYangGet, "%s MTU %d (configured %d)", hi.Name, hi.MTU, hi.ConfigMTU),
		}
		if withRouter+withHost > 0 {
			ev = append(ev, r.ev(rd.Calls[pathInterfaces], rd.Name, netproto.ToolYangGet, "the other hosts of %s's LAN: %d at MTU %d, %d at MTU %d", rp.Name, withRouter, rp.MTU, withHost, hi.MTU))
		}
		if belowConfig(oi, pi) {
			r.rep.addCause(fragCause(l, odd, oi.MTU, oi.ConfigMTU, ev...))
		} else {
			r.rep.addCause(mtuCause(l, odd, oi.MTU, pi.MTU, oi.ConfigMTU, ev...))
		}
	}
}

// belowConfig: it runs below its configured MTU, which is its peer's.
func belowConfig(it, peer *ifaceView) bool {
	return it.ConfigMTU > 0 && it.MTU < it.ConfigMTU && it.ConfigMTU == peer.MTU
}

// offConfig: its running MTU is not its configured one.
func offConfig(it *ifaceView) bool { return it.ConfigMTU > 0 && it.MTU != it.ConfigMTU }

// hostLinkErrors reads both ends of the link to the host at h again (its
// router's port, and the host's own port when it serves a view) after the
// probe p lost some or all of its packets: input errors grown on either
// end meanwhile mean the link corrupts what it carries, which explains
// the loss (rather than the host's addressing).
func (r *run) hostLinkErrors(n *network, h hostAttach, p pingResult) (Cause, bool) {
	rd := n.Devices[h.Router.Device]
	rp := rd.Iface(h.Router.Iface)
	if rp == nil || !rp.OperUp {
		return Cause{}, false
	}
	he := end{Device: h.Host.Name, Addr: h.Addr}
	hv := n.HostViews[h.Host.Name]
	hi := hostPort(hv, h.Addr)
	if hi != nil {
		he.Iface = hi.Name
	}
	grown := func(dev string, first *ifaceView) (int64, Evidence, bool) {
		if first == nil {
			return 0, Evidence{}, false
		}
		data, call, err := r.yangGet(dev, pathInterfaces)
		if err != nil {
			return 0, Evidence{}, false
		}
		for _, it := range parseInterfaces(data) {
			if it.Name == first.Name {
				g := max(it.InErrors-first.InErrors, 0)
				return g, r.ev(call, dev, netproto.ToolYangGet, "%s in-errors %d (%d more since the first read)", it.Name, it.InErrors, g), true
			}
		}
		return 0, Evidence{}, false
	}
	ev := []Evidence{r.ev(p.Call, h.Router.Device, netproto.ToolPing, "%s", p.Text)}
	var errs int64
	if g, e, ok := grown(h.Router.Device, rp); ok {
		errs += g
		ev = append(ev, e)
	}
	if hv != nil && hv.Err == "" {
		if g, e, ok := grown(h.Host.Name, hi); ok {
			errs += g
			ev = append(ev, e)
		}
	}
	if errs == 0 {
		return Cause{}, false
	}
	return lossCause(link{A: h.Router, B: he}, p.Loss, errs, ev...), true
}
