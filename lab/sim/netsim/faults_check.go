package netsim

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// IsRuntimeFault tells whether a named fault is runtime state of the
// network model (SetFaults takes it) rather than a configuration
// difference the lab makes through the device's configuration.
func IsRuntimeFault(name string) bool {
	_, ok := runtimeFaults[name]
	return ok
}

// CheckFault checks a named fault against a topology: its name, target
// form and parameter keys (topology.Fault.CheckSpec), that the target
// exists and is of the right kind (a router or a host as the catalog's On
// says; an interface; a link end), and that every parameter parses and is
// in range. It checks configuration faults as well as runtime ones.
func CheckFault(t *topology.Topology, f topology.Fault) error {
	return checkNamed(t, interfaceSets(t), linkEnds(t), f)
}

// CheckFault checks a named fault against the network's current topology
// (see the package function CheckFault).
func (n *Network) CheckFault(f topology.Fault) error {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return CheckFault(&n.topo, f)
}

func checkNamed(t *topology.Topology, devs map[string]map[string]bool, ends map[string]bool, f topology.Fault) error {
	if err := f.CheckSpec(); err != nil {
		return err
	}
	spec, _ := topology.LookupFault(f.Name)
	where := "fault " + f.Name + " " + f.Target
	devName, ifn, isEnd := topology.SplitEnd(f.Target)
	if !isEnd {
		devName = f.Target
	}
	var dev *topology.Device
	for i := range t.Devices {
		if t.Devices[i].Name == devName {
			dev = &t.Devices[i]
		}
	}
	if dev == nil {
		return fmt.Errorf("%s: no device %q", where, devName)
	}
	kind := dev.Kind
	if kind == "" {
		kind = topology.KindRouter
	}
	switch spec.On {
	case topology.OnRouter:
		if kind == topology.KindHost {
			return fmt.Errorf("%s: %s is a host; this fault applies to routers", where, devName)
		}
	case topology.OnHost:
		if kind != topology.KindHost {
			return fmt.Errorf("%s: %s is a %s; this fault applies to hosts", where, devName, kind)
		}
	}
	if isEnd {
		if !devs[devName][ifn] {
			return fmt.Errorf("%s: device %q has no interface %q", where, devName, ifn)
		}
		linkOnly := slices.Contains(spec.Targets, topology.TargetLink) && !slices.Contains(spec.Targets, topology.TargetInterface)
		if (linkOnly || f.Name == "link_detach") && !ends[f.Target] {
			return fmt.Errorf("%s: no link has end %q", where, f.Target)
		}
	}
	for _, p := range spec.Params {
		v := f.Param(p.Key)
		if v == "" {
			continue // derived from the topology when the fault is applied
		}
		if err := checkParam(t, devs, dev, p.Key, v, spec); err != nil {
			return fmt.Errorf("%s: %s=%s: %v", where, p.Key, v, err)
		}
	}
	if f.Name == "link_flap" {
		period, _ := strconv.ParseFloat(f.Param("period"), 64)
		down, _ := strconv.ParseFloat(f.Param("down"), 64)
		if down >= period {
			return fmt.Errorf("%s: down (%gs) must be shorter than period (%gs)", where, down, period)
		}
	}
	return nil
}

// checkParam checks one parameter's value.
func checkParam(t *topology.Topology, devs map[string]map[string]bool, dev *topology.Device, key, v string, spec topology.FaultSpec) error {
	num := func(lo, hi float64) error {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("not a number")
		}
		if x < lo || x > hi {
			return fmt.Errorf("out of range %g-%g", lo, hi)
		}
		return nil
	}
	integer := func(lo, hi int64) error {
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("not an integer")
		}
		if x < lo || x > hi {
			return fmt.Errorf("out of range %d-%d", lo, hi)
		}
		return nil
	}
	switch key {
	case "direction":
		allowed := []string{"in", "out"}
		if spec.Params[slices.IndexFunc(spec.Params, func(p topology.ParamSpec) bool { return p.Key == key })].Default == "both" {
			allowed = append(allowed, "both")
		}
		if !slices.Contains(allowed, v) {
			return fmt.Errorf("want %s", strings.Join(allowed, ", "))
		}
	case "percent":
		return num(0, 100)
	case "rate":
		return num(1, 100e6)
	case "delay-ms", "jitter-ms":
		return num(0, 60000)
	case "period", "down":
		return num(0.001, 86400)
	case "mtu":
		return integer(68, 65535)
	case "port":
		return integer(1, 65535)
	case "area":
		if _, err := ParseArea(v); err != nil {
			return err
		}
	case "remote-as":
		return integer(1, 4294967295)
	case "neighbor", "gateway", "server":
		if _, err := netip.ParseAddr(v); err != nil {
			return fmt.Errorf("not an IP address")
		}
	case "prefix":
		if _, err := netip.ParsePrefix(v); err != nil {
			return fmt.Errorf("not a prefix (want CIDR form)")
		}
	case "address":
		if _, err := netip.ParsePrefix(v); err != nil {
			return fmt.Errorf("not an address in CIDR form")
		}
	case "prefix-length":
		return integer(0, 128)
	case "interface":
		if !devs[dev.Name][v] {
			return fmt.Errorf("device %q has no interface %q", dev.Name, v)
		}
	case "with":
		if _, ok := devs[v]; !ok {
			return fmt.Errorf("no device %q", v)
		}
		if v == dev.Name {
			return fmt.Errorf("a device cannot conflict with itself")
		}
	case "name", "value":
		if strings.ContainsAny(v, " \t") {
			return fmt.Errorf("must be one word")
		}
	}
	return nil
}

// ParseArea parses an OSPF area id, dotted ("0.0.0.1") or decimal ("1"),
// and returns it dotted.
func ParseArea(s string) (string, error) {
	if a, err := netip.ParseAddr(s); err == nil && a.Is4() {
		return a.String(), nil
	}
	x, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return "", fmt.Errorf("area %q: want dotted (0.0.0.1) or decimal (1)", s)
	}
	return netip.AddrFrom4([4]byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)}).String(), nil
}
