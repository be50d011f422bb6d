package console

import (
	"context"
	"errors"
	"maps"
	"strings"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// YANG paths the console reads.
const (
	pathInterfaces = "/openconfig-interfaces:interfaces"
	pathNetInst    = "/openconfig-network-instance:network-instances"
	pathLLDP       = "/openconfig-lldp:lldp"
	pathRouting    = "/ietf-routing:routing"
)

// States of a node, a link and a link end, as the page's classes name them.
const (
	stUp        = "up"
	stDown      = "down"
	stAdminDown = "admin-down"
	stWarn      = "warn"      // up, but an OSPF adjacency or BGP session is not
	stUnknown   = "unknown"   // not read yet
	stUnmanaged = "unmanaged" // not in the fleet: nothing to read
)

// iface is an interface as last read.
type iface struct {
	Name, Description string
	Admin, Oper       string
	MTU               string
	Addrs             []string
}

// devState is what the last reads of a device returned.
type devState struct {
	Err    string // why the device could not be read
	Ifaces []iface
	// OSPF maps an OSPF interface (not passive) to whether it has a full
	// adjacency; nil when OSPF was not read.
	OSPF map[string]bool
	// BGPDown lists the enabled BGP peers not established ("10.0.0.2 ACTIVE").
	BGPDown []string
	// Protocols tells whether OSPF and BGP were read.
	Protocols bool
	// LLDP are the links the device's LLDP neighbours show.
	LLDP []linkSpec
}

func (d *devState) iface(name string) (iface, bool) {
	for _, it := range d.Ifaces {
		if it.Name == name {
			return it, true
		}
	}
	return iface{}, false
}

// nodeView and linkView are the states the page shows.
type nodeView struct {
	S    string `json:"s"`
	Note string `json:"n,omitempty"`
}

type linkView struct {
	S    string `json:"s"`
	A    string `json:"a"`
	B    string `json:"b"`
	Note string `json:"n,omitempty"`
}

// view is the state of the whole map.
type view struct {
	Nodes map[string]nodeView `json:"nodes"`
	Links map[string]linkView `json:"links"`
}

// diff is what changed from old to v (entries of v that differ).
func (v view) diff(old view) view {
	d := view{Nodes: map[string]nodeView{}, Links: map[string]linkView{}}
	for k, x := range v.Nodes {
		if old.Nodes[k] != x {
			d.Nodes[k] = x
		}
	}
	for k, x := range v.Links {
		if old.Links[k] != x {
			d.Links[k] = x
		}
	}
	return d
}

func (v view) empty() bool { return len(v.Nodes) == 0 && len(v.Links) == 0 }

func (v view) clone() view {
	return view{Nodes: maps.Clone(v.Nodes), Links: maps.Clone(v.Links)}
}

// computeView derives the map's colours from the devices' states.
func computeView(g *graph, states map[string]*devState) view {
	v := view{Nodes: map[string]nodeView{}, Links: map[string]linkView{}}
	for _, nd := range g.Nodes {
		nv := nodeView{S: stUnknown}
		st := states[nd.Name]
		switch {
		case !nd.Managed:
			nv.S = stUnmanaged
		case st == nil:
		case st.Err != "":
			nv = nodeView{S: stDown, Note: st.Err}
		case len(st.BGPDown) > 0:
			nv = nodeView{S: stWarn, Note: "BGP " + strings.Join(st.BGPDown, ", ")}
		default:
			nv.S = stUp
		}
		v.Nodes[nd.Name] = nv
	}
	for _, e := range g.Edges {
		a := endState(states[e.A], e.AIf)
		b := endState(states[e.B], e.BIf)
		lv := linkView{A: a, B: b, S: stUnknown}
		switch {
		case a == stDown || b == stDown:
			lv.S = stDown
			lv.Note = downNote(e, a, b)
		case a == stAdminDown || b == stAdminDown:
			lv.S = stAdminDown
			lv.Note = downNote(e, a, b)
		case a == stUp && (b == stUp || !g.Nodes[e.bi].Managed), b == stUp && !g.Nodes[e.ai].Managed:
			// A device outside the fleet (a lab's host) cannot be read:
			// the other end speaks for the link.
			lv.S = stUp
			if w := ospfNote(e, states); w != "" {
				lv.S, lv.Note = stWarn, w
			}
		}
		v.Links[e.ID] = lv
	}
	return v
}

// endState is the state of a link end from its device's interfaces.
func endState(st *devState, ifname string) string {
	if st == nil || st.Err != "" {
		return stUnknown
	}
	it, ok := st.iface(ifname)
	switch {
	case !ok, it.Oper == "":
		return stUnknown
	case strings.EqualFold(it.Admin, "DOWN"):
		return stAdminDown
	case strings.EqualFold(it.Oper, "UP"):
		return stUp
	}
	return stDown
}

func downNote(e edge, a, b string) string {
	var parts []string
	if a != stUp && a != stUnknown {
		parts = append(parts, e.A+":"+e.AIf+" "+a)
	}
	if b != stUp && b != stUnknown {
		parts = append(parts, e.B+":"+e.BIf+" "+b)
	}
	return strings.Join(parts, ", ")
}

// ospfNote names the ends of a link that run OSPF without a full adjacency.
func ospfNote(e edge, states map[string]*devState) string {
	var parts []string
	for _, end := range [][2]string{{e.A, e.AIf}, {e.B, e.BIf}} {
		st := states[end[0]]
		if st == nil || st.OSPF == nil {
			continue
		}
		if full, ok := st.OSPF[end[1]]; ok && !full {
			parts = append(parts, end[0]+":"+end[1]+" OSPF not full")
		}
	}
	return strings.Join(parts, ", ")
}

// read reads a device: its interfaces always, OSPF and BGP when protocols
// is set, LLDP neighbours when lldp is set.
func read(ctx context.Context, d *client.Device, protocols, lldp bool) *devState {
	st := &devState{}
	data, err := yangGet(ctx, d, pathInterfaces)
	if err != nil {
		st.Err = shortErr(err)
		return st
	}
	st.Ifaces = parseInterfaces(data)
	if protocols {
		if data, err := yangGet(ctx, d, pathNetInst); err == nil {
			st.Protocols = true
			st.OSPF, st.BGPDown = parseProtocols(data)
		}
	}
	if lldp {
		if data, err := yangGet(ctx, d, pathLLDP); err == nil {
			st.LLDP = parseLLDP(d.Name(), data)
		}
	}
	return st
}

func yangGet(ctx context.Context, d *client.Device, path string) (any, error) {
	res, err := d.CallTool(ctx, netproto.ToolYangGet, map[string]any{"path": path})
	if err != nil {
		return nil, err
	}
	return resultData(res), nil
}

// shortErr is the first line of an error, at most 160 bytes.
func shortErr(err error) string {
	var de *client.DeviceError
	if errors.As(err, &de) && de.Err != nil {
		err = de.Err
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}

func parseInterfaces(data any) []iface {
	var out []iface
	for _, n := range yang.List(yang.Member(data, "interface")) {
		it := iface{Name: yang.Text(yang.Member(n, "name")), Description: yang.Text(yang.Leaf(n, "description")),
			Admin: yang.Text(yang.Member(n, "state", "admin-status")), Oper: yang.Text(yang.Member(n, "state", "oper-status")),
			MTU: yang.Text(yang.Leaf(n, "mtu"))}
		for _, s := range yang.List(yang.Member(n, "subinterfaces", "subinterface")) {
			for _, fam := range []string{"ipv4", "ipv6"} {
				for _, a := range yang.List(yang.Member(s, fam, "addresses", "address")) {
					ip, bits := yang.Text(yang.Leaf(a, "ip")), yang.Text(yang.Leaf(a, "prefix-length"))
					if ip != "" && bits != "" {
						it.Addrs = append(it.Addrs, ip+"/"+bits)
					}
				}
			}
		}
		out = append(out, it)
	}
	return out
}

// parseProtocols reads the default instance's OSPF interfaces and BGP peers.
func parseProtocols(data any) (ospf map[string]bool, bgpDown []string) {
	for _, ni := range yang.List(yang.Member(data, "network-instance")) {
		if name := yang.Text(yang.Member(ni, "name")); name != "default" && !strings.EqualFold(name, "DEFAULT") {
			continue
		}
		for _, p := range yang.List(yang.Member(ni, "protocols", "protocol")) {
			switch yang.Identity(yang.Member(p, "identifier")) {
			case "OSPF":
				if ospf == nil {
					ospf = map[string]bool{}
				}
				for _, a := range yang.List(yang.Member(p, "ospfv2", "areas", "area")) {
					for _, i := range yang.List(yang.Member(a, "interfaces", "interface")) {
						if yang.Leaf(i, "passive") == true {
							continue
						}
						full := false
						for _, nb := range yang.List(yang.Member(i, "neighbors", "neighbor")) {
							if strings.EqualFold(yang.Identity(yang.Member(nb, "state", "adjacency-state")), "FULL") {
								full = true
							}
						}
						ospf[yang.Text(yang.Member(i, "id"))] = full
					}
				}
			case "BGP":
				for _, nb := range yang.List(yang.Member(p, "bgp", "neighbors", "neighbor")) {
					if en := yang.Leaf(nb, "enabled"); en == false {
						continue
					}
					s := strings.ToUpper(yang.Identity(yang.Member(nb, "state", "session-state")))
					if s != "ESTABLISHED" {
						addr := yang.Text(yang.Member(nb, "neighbor-address"))
						if s == "" {
							s = "unknown"
						}
						bgpDown = append(bgpDown, addr+" "+s)
					}
				}
			}
		}
	}
	return ospf, bgpDown
}

// parseLLDP reads the links of a device's LLDP neighbours.
func parseLLDP(dev string, data any) []linkSpec {
	var out []linkSpec
	for _, i := range yang.List(yang.Member(data, "interfaces", "interface")) {
		local := yang.Text(yang.Member(i, "name"))
		for _, nb := range yang.List(yang.Member(i, "neighbors", "neighbor")) {
			sys, port := yang.Text(yang.Leaf(nb, "system-name")), yang.Text(yang.Leaf(nb, "port-id"))
			if local != "" && sys != "" && port != "" {
				out = append(out, linkSpec{dev, local, sys, port})
			}
		}
	}
	return out
}
