//go:build linux

package real

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/topology"
)

// The routing faults on the real lab: misconfigurations made with vtysh
// in the router's running FRR, and its routing daemons stopped.

// registerRoutingFaults binds the routing faults.
func registerRoutingFaults(b *fault.Backend[*Lab]) {
	b.Register("ospf_area_misconfiguration", configured(onOff((*Lab).ospfArea)))
	b.Register("bgp_asn_misconfig", configured(onOff((*Lab).bgpASN)))
	b.Register("bgp_missing_route_advertisement", configured(onOff((*Lab).bgpNetwork)))
	b.Register("frr_service_down", fault.Impl[*Lab]{Apply: (*Lab).stopRouting, Clear: (*Lab).startRouting})
	b.Unsupported("ospf_neighbor_missing", "not written yet")
}

// stopRouting stops the target router's routing daemons.
func (l *Lab) stopRouting(_ context.Context, f topology.Fault) error {
	d, ok := l.plan.Device(f.Target)
	if !ok || !d.Router() {
		return fmt.Errorf("frr_service_down: %s is not a router of the lab", f.Target)
	}
	var errs []error
	for _, dm := range frrDaemons {
		l.mu.Lock()
		p := l.byName[d.Dev.Name+"/"+dm]
		l.mu.Unlock()
		if p != nil {
			errs = append(errs, p.stop(3*time.Second))
		}
	}
	return errors.Join(errs...)
}

// startRouting starts the target router's stopped routing daemons again
// (restartRouting).
func (l *Lab) startRouting(ctx context.Context, f topology.Fault) error {
	d, ok := l.plan.Device(f.Target)
	if !ok || !d.Router() {
		return fmt.Errorf("frr_service_down: %s is not a router of the lab", f.Target)
	}
	return l.restartRouting(ctx, d)
}

// restartRouting starts router d's stopped routing daemons again and
// reloads its configuration.
func (l *Lab) restartRouting(ctx context.Context, d *planDevice) error {
	for _, dm := range frrDaemons {
		key := d.Dev.Name + "/" + dm
		l.mu.Lock()
		p := l.byName[key]
		l.mu.Unlock()
		if p != nil && p.alive() {
			continue
		}
		// A daemon stopped by a signal may leave its socket behind.
		_ = os.Remove(filepath.Join(FRRRunDir, d.NS, dm+".vty"))
		np, err := l.startFRRDaemon(d, dm)
		if err != nil {
			return err
		}
		if err := waitFile(ctx, np, filepath.Join(FRRRunDir, d.NS, dm+".vty"), 15*time.Second); err != nil {
			return err
		}
	}
	if _, err := run(ctx, d.NS, "vtysh", "-N", d.NS, "--config_dir", filepath.Join(l.dir, "frr"), "-b"); err != nil {
		return err
	}
	return l.fastAdjacencies(ctx, 15*time.Second)
}

// ospfArea moves an interface to another OSPF area ("no ip ospf area",
// then "ip ospf area A"), and back.
func (l *Lab) ospfArea(ctx context.Context, f topology.Fault, on bool) error {
	d, i, err := l.target(f)
	if err != nil {
		return err
	}
	if !d.Router() || d.Dev.OSPF == nil || i.Topol.OSPF == nil {
		return fmt.Errorf("%s: %s is not an OSPF interface", f.Name, f.Target)
	}
	area := i.Topol.OSPF.Area
	if on {
		area = f.Param("area")
		if area == "" {
			area = "0.0.0.1"
			if i.Topol.OSPF.Area == area || i.Topol.OSPF.Area == "1" {
				area = "0.0.0.2"
			}
		}
		if _, err := netip.ParseAddr(area); err != nil {
			if _, err := strconv.ParseUint(area, 10, 32); err != nil {
				return fmt.Errorf("%s: area %q: want dotted (0.0.0.1) or decimal", f.Name, area)
			}
		}
	}
	if _, err := l.Vtysh(ctx, d.Dev.Name, "configure terminal", "interface "+i.Linux, "no ip ospf area", "ip ospf area "+area); err != nil {
		return err
	}
	if !on {
		return l.fastAdjacencies(ctx, 15*time.Second)
	}
	return nil
}

// bgpASN configures a BGP neighbour with a wrong remote AS, and back.
func (l *Lab) bgpASN(ctx context.Context, f topology.Fault, on bool) error {
	d, err := l.router(f, "bgp")
	if err != nil {
		return err
	}
	nb := d.Dev.BGP.Neighbors
	if len(nb) == 0 {
		return fmt.Errorf("%s: %s has no BGP neighbour", f.Name, f.Target)
	}
	n := nb[0]
	if a := f.Param("neighbor"); a != "" {
		k := slices.IndexFunc(nb, func(n topology.BGPNeighbor) bool { return n.Address == a })
		if k < 0 {
			return fmt.Errorf("%s: %s has no BGP neighbour %s", f.Name, f.Target, a)
		}
		n = nb[k]
	}
	as := uint64(n.RemoteAS)
	if on {
		as += 1000
		if s := f.Param("remote-as"); s != "" {
			if as, err = strconv.ParseUint(s, 10, 32); err != nil || as == 0 {
				return fmt.Errorf("%s: remote-as %q: want 1..4294967295", f.Name, s)
			}
		}
	}
	_, err = l.Vtysh(ctx, d.Dev.Name, "configure terminal", fmt.Sprintf("router bgp %d", d.Dev.BGP.ASN),
		fmt.Sprintf("neighbor %s remote-as %d", n.Address, as))
	if err != nil || on {
		return err
	}
	_, err = l.Vtysh(ctx, d.Dev.Name, "clear bgp "+n.Address)
	return err
}

// bgpNetwork removes a BGP network statement, and puts it back.
func (l *Lab) bgpNetwork(ctx context.Context, f topology.Fault, on bool) error {
	d, err := l.router(f, "bgp")
	if err != nil {
		return err
	}
	nets := d.Dev.BGP.Networks
	if len(nets) == 0 {
		return fmt.Errorf("%s: %s advertises no network", f.Name, f.Target)
	}
	p := nets[0]
	if s := f.Param("prefix"); s != "" {
		p = s
	}
	pfx, err := netip.ParsePrefix(p)
	if err != nil || !slices.ContainsFunc(nets, func(s string) bool { q, e := netip.ParsePrefix(s); return e == nil && q.Masked() == pfx.Masked() }) {
		return fmt.Errorf("%s: %s has no network statement %q (it has %s)", f.Name, f.Target, p, strings.Join(nets, ", "))
	}
	fam, stmt := "ipv4 unicast", "network "+pfx.Masked().String()
	if !pfx.Addr().Is4() {
		fam = "ipv6 unicast"
	}
	if on {
		stmt = "no " + stmt
	}
	_, err = l.Vtysh(ctx, d.Dev.Name, "configure terminal", fmt.Sprintf("router bgp %d", d.Dev.BGP.ASN), "address-family "+fam, stmt)
	return err
}
