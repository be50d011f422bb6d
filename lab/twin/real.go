//go:build linux

package twin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"

	reallab "github.com/netmcp/netmcp/lab/real"
)

// RealControl reads the control-plane facts of every router from FRR
// (vtysh JSON) in the real lab.
func RealControl(ctx context.Context, l *reallab.Lab, env *Env) (Facts, error) {
	fs := Facts{}
	var mu sync.Mutex
	errs := make([]error, len(env.Routers))
	var wg sync.WaitGroup
	for k, r := range env.Routers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			one := Facts{}
			if err := realRouter(ctx, l, r, one); err != nil {
				errs[k] = fmt.Errorf("%s: %w", r, err)
				return
			}
			mu.Lock()
			for key, f := range one {
				fs[key] = f
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return fs, errors.Join(errs...)
}

// realRouter reads one router's OSPF neighbours, BGP sessions and RIB.
func realRouter(ctx context.Context, l *reallab.Lab, r string, fs Facts) error {
	topo := func(linux string) string { return l.TopologyName(r, linux) }
	var ospf struct {
		Neighbors map[string][]struct {
			State     string `json:"nbrState"`
			IfaceName string `json:"ifaceName"` // "gi0-0-0:10.0.12.1"
		} `json:"neighbors"`
	}
	if err := vtyshJSON(ctx, l, r, "show ip ospf neighbor json", &ospf); err != nil && !notRunning(err) {
		return err
	}
	for id, list := range ospf.Neighbors {
		for _, nb := range list {
			ifname, _, _ := strings.Cut(nb.IfaceName, ":")
			state, _, _ := strings.Cut(nb.State, "/") // "Full/-", "ExStart/DROther"
			fs.Add(KindOSPF, r, topo(ifname)+" "+id, state)
		}
	}
	out, err := l.Vtysh(ctx, r, "show bgp neighbors json")
	if err != nil && !notRunning(err) {
		return err
	}
	var bgp map[string]struct {
		State        string `json:"bgpState"`
		Notification string `json:"lastNotificationReason"`
		ResetDueTo   string `json:"lastResetDueTo"`
	}
	// Without a BGP instance vtysh prints a sentence, not JSON: no facts.
	if json.Unmarshal(out, &bgp) == nil {
		for a, nb := range bgp {
			if addr, err := netip.ParseAddr(a); err != nil || !addr.Is4() {
				continue
			}
			last := nb.Notification
			if last == "" {
				last = nb.ResetDueTo
			}
			fs.Add(KindBGPState, r, a, nb.State)
			fs.Add(KindBGPError, r, a, errorClass(nb.State, last))
		}
	}
	var rib map[string][]struct {
		Protocol string `json:"protocol"`
		Selected bool   `json:"selected"`
		Nexthops []struct {
			IP          string `json:"ip"`
			Interface   string `json:"interfaceName"`
			Recursive   bool   `json:"recursive"`
			Unreachable bool   `json:"unreachable"`
			Active      bool   `json:"active"`
		} `json:"nexthops"`
	}
	if err := vtyshJSON(ctx, l, r, "show ip route json", &rib); err != nil {
		return err
	}
	for p, list := range rib {
		for _, rt := range list {
			if !rt.Selected {
				continue
			}
			var nhs []string
			resolving := false // the hops after a recursive one resolve it
			for _, h := range rt.Nexthops {
				switch {
				case resolving && !h.Recursive:
					continue
				case h.Unreachable:
					nhs = append(nhs, "blackhole")
				case h.IP != "":
					nhs = append(nhs, h.IP)
				default:
					nhs = append(nhs, topo(h.Interface))
				}
				resolving = h.Recursive
			}
			proto := rt.Protocol
			if proto == "kernel" || proto == "local" {
				proto = "connected"
			}
			fs.Add(KindRoute, r, p, routeValue(proto, nhs))
		}
	}
	return nil
}

// notRunning tells whether vtysh failed because the daemon asked is not
// running (frr_service_down): the router then has no facts of it, as the
// simulator's stopped process has none.
func notRunning(err error) bool { return strings.Contains(err.Error(), "is not running") }

// vtyshJSON runs a vtysh show command with json and decodes it.
func vtyshJSON(ctx context.Context, l *reallab.Lab, r, cmd string, v any) error {
	out, err := l.Vtysh(ctx, r, cmd)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("vtysh %q: %w: %.200s", cmd, err, out)
	}
	return nil
}

// RealProbes runs every probe of env in the real lab: "ping -c 1" and
// "traceroute -n -q 1 -N 1" from the router's namespace. The routers probe
// at once, each its probes one after the other: Linux answers a packet it
// has no route for with an ICMP unreachable at most once a second per
// sender after a burst of five (net.ipv4.route.error_cost), so a router
// probing many destinations at once through a router without a route
// would see its answers silenced.
func RealProbes(ctx context.Context, l *reallab.Lab, env *Env) (Facts, error) {
	bySource := map[string][]Probe{}
	var sources []string
	for _, p := range env.Probes() {
		if _, ok := bySource[p.From]; !ok {
			sources = append(sources, p.From)
		}
		bySource[p.From] = append(bySource[p.From], p)
	}
	fs := Facts{}
	var mu sync.Mutex
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	for k, src := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, p := range bySource[src] {
				ping, trace, err := realProbe(ctx, l, p)
				if err != nil {
					errs[k] = err
					return
				}
				mu.Lock()
				fs.Add(KindPing, p.From, p.To.String(), ping)
				fs.Add(KindTrace, p.From, p.To.String(), trace)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return fs, errors.Join(errs...)
}

// realProbe runs one ping and one traceroute.
func realProbe(ctx context.Context, l *reallab.Lab, p Probe) (ping, trace string, err error) {
	dst := p.To.String()
	ping = "ok"
	if _, err := l.Exec(ctx, p.From, "ping", "-n", "-c", "1", "-W", "2", dst); err != nil {
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		ping = "fail"
	}
	out, err := l.Exec(ctx, p.From, "traceroute", "-n", "-q", "1", "-N", "1", "-w", "1", "-m", fmt.Sprint(MaxHops), dst)
	switch {
	case err != nil && strings.Contains(strings.ToLower(err.Error()), "unreachable"):
		return ping, "unreachable", nil
	case err != nil:
		return "", "", fmt.Errorf("traceroute %s -> %s: %w", p.From, dst, err)
	}
	return ping, parseTraceroute(string(out)), nil
}

// parseTraceroute reads "traceroute -n -q 1" output: one line per hop,
// " 2  10.0.23.2  0.061 ms !H" or " 3  *".
func parseTraceroute(out string) string {
	var hops []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] == "traceroute" {
			continue
		}
		if f[1] == "*" {
			hops = append(hops, "*")
			continue
		}
		h := f[1]
		for _, w := range f[2:] {
			if strings.HasPrefix(w, "!") {
				h += " " + w
				break
			}
		}
		hops = append(hops, h)
	}
	return joinHops(hops)
}
