//go:build linux

package real

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// fastHello is the OSPF hello interval (seconds) while adjacencies form.
const fastHello = 1

// Adjacencies form one hello interval after the routers start (10 s by
// default): a router's first hellos list no neighbour, and FRR 8.4 lists
// a new neighbour only in its next periodic hello (setting the interval
// does not send one at once in 8.4). So while adjacencies form, the lab
// runs the OSPF interfaces with a one-second hello and the topology's
// dead interval (fastAdjacencies), and once they are Full it sets the
// topology's timers back: the running configuration is then
// the topology's again. Changing the hello interval on one side first
// makes the peer drop our hellos for a moment (the intervals differ),
// which an adjacency survives for its dead interval: every router
// switches within a second or two.

// ospfIfaces lists, per router with OSPF, the Linux names of its OSPF
// interfaces that form adjacencies, with their topology timers.
type ospfIface struct {
	linux       string
	hello, dead int // the topology's (0: FRR's default)
}

func (l *Lab) ospfIfaces() map[string][]ospfIface {
	out := map[string][]ospfIface{}
	for _, d := range l.plan.Devices {
		if !d.Router() || d.Dev.OSPF == nil {
			continue
		}
		for _, i := range d.Ifaces {
			o := i.Topol.OSPF
			if o == nil || o.Passive || i.Kind != ifVeth {
				continue
			}
			out[d.Dev.Name] = append(out[d.Dev.Name], ospfIface{linux: i.Linux, hello: o.Hello, dead: o.Dead})
		}
	}
	return out
}

// setHello pushes interface timers to every router with OSPF links at
// once; fast selects the bring-up timers, else the topology's.
func (l *Lab) setHello(ctx context.Context, fast bool) error {
	var fns []func() error
	for r, ifs := range l.ospfIfaces() {
		cmds := []string{"configure terminal"}
		for _, i := range ifs {
			cmds = append(cmds, "interface "+i.linux)
			hello := i.hello
			if hello == 0 {
				hello = 10 // FRR's default
			}
			switch {
			case fast:
				// The dead interval first: FRR 8.4 derives it from a new
				// hello interval (4 s for 1 s) unless it is set.
				dead := i.dead
				if dead == 0 {
					dead = 4 * hello
				}
				cmds = append(cmds, "ip ospf dead-interval "+strconv.Itoa(dead), "ip ospf hello-interval "+strconv.Itoa(fastHello))
			default:
				// "no ip ospf hello-interval" would reset the interface's
				// adjacencies in FRR 8.4; setting the value does not, and
				// FRR does not write a default hello interval out.
				cmds = append(cmds, "ip ospf hello-interval "+strconv.Itoa(hello))
				if i.dead > 0 {
					cmds = append(cmds, "ip ospf dead-interval "+strconv.Itoa(i.dead))
				} else {
					cmds = append(cmds, "no ip ospf dead-interval")
				}
			}
			cmds = append(cmds, "exit")
		}
		cmds = append(cmds, "end")
		fns = append(fns, func() error {
			if out, err := l.Vtysh(ctx, r, cmds...); err != nil {
				return fmt.Errorf("%s: setting OSPF timers: %w %s", r, err, strings.TrimSpace(string(out)))
			}
			return nil
		})
	}
	return parallel(fns)
}

// fastAdjacencies runs the bring-up timers until every expected OSPF
// adjacency is Full or timeout passes (a fault may keep one down: the
// timers are set back all the same), then sets the topology's timers.
func (l *Lab) fastAdjacencies(ctx context.Context, timeout time.Duration) error {
	if len(l.ospfIfaces()) == 0 {
		return nil
	}
	if err := l.setHello(ctx, true); err != nil {
		return err
	}
	exp := l.expectations()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		missing := l.eachRouter(func(r string) string {
			if e := exp[r]; e.ospfFull > 0 {
				if n, err := l.OSPFFull(ctx, r); err != nil || n < e.ospfFull {
					return "not Full"
				}
			}
			return ""
		})
		if len(missing) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return l.setHello(ctx, false)
}
