package sim

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/device"
)

func init() { device.Register("sim", open) }

// shared labs opened through device.Open, one per (topology, state
// directory), so that sim://r1 and sim://r2 opened in one process share
// one network.
var (
	labsMu sync.Mutex
	labs   = map[string]*sharedLab{}
)

type sharedLab struct {
	lab  *Lab
	refs int
}

// opened is a Driver obtained from device.Open: closing it releases the
// shared lab, which closes with its last device.
type opened struct {
	*Driver
	key  string
	once sync.Once
}

// Close releases the device; the lab closes with its last device.
func (o *opened) Close() error {
	var err error
	o.once.Do(func() {
		labsMu.Lock()
		defer labsMu.Unlock()
		s := labs[o.key]
		if s == nil {
			return
		}
		if s.refs--; s.refs == 0 {
			delete(labs, o.key)
			err = s.lab.Close()
		}
	})
	return err
}

// URLParams are the query parameters of a sim:// URL, each also
// accepted in device.Options.Params: "topology" names a topology file,
// "realtime" (1/true or 0/false) paces diagnostics like the real tools,
// "commitDelay" (a duration: "2s") is how long a commit takes to apply
// (LabOptions.CommitDelay).
var URLParams = []string{"commitDelay", "realtime", "topology"}

// open serves device.Open("sim://NAME[?realtime=1&topology=PATH]"): the
// URL's query and Options.Params give URLParams ("" topology: the
// embedded default); Options.StateDir/<NAME> is the device's state
// directory.
func open(ctx context.Context, u *url.URL, opts device.Options) (device.Driver, error) {
	name := u.Host
	if name == "" {
		name = u.Opaque
	}
	if name == "" {
		return nil, fmt.Errorf("sim: URL %q names no device (want sim://r1)", u.String())
	}
	params, err := urlParams(name, u.RawQuery, opts.Params)
	if err != nil {
		return nil, err
	}
	path := params["topology"]
	if path != "" {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
	}
	var realtime bool
	switch v := params["realtime"]; v {
	case "", "0", "false":
	case "1", "true":
		realtime = true
	default:
		return nil, fmt.Errorf("sim: URL parameter realtime=%q of %s: want 1, true, 0 or false", v, name)
	}
	var delay time.Duration
	if v := params["commitDelay"]; v != "" {
		if delay, err = time.ParseDuration(v); err != nil || delay < 0 || delay > time.Hour {
			return nil, fmt.Errorf("sim: URL parameter commitDelay=%q of %s: want a duration from 0s to 1h, such as 2s", v, name)
		}
	}
	key := path + "\x00" + opts.StateDir + "\x00" + strconv.FormatBool(realtime) + "\x00" + delay.String()
	labsMu.Lock()
	defer labsMu.Unlock()
	s := labs[key]
	if s == nil {
		topo, err := LoadTopology(path)
		if err != nil {
			return nil, err
		}
		lab, err := NewLab(topo, LabOptions{StateDir: opts.StateDir, Realtime: realtime, CommitDelay: delay})
		if err != nil {
			return nil, err
		}
		s = &sharedLab{lab: lab}
		labs[key] = s
	}
	drv, err := s.lab.Device(name)
	if h, herr := s.lab.Host(name); err != nil && herr == nil {
		s.refs++
		return &openedHost{HostDriver: h, rel: opened{key: key}}, nil
	}
	if err != nil {
		if s.refs == 0 {
			delete(labs, key)
			s.lab.Close()
		}
		return nil, err
	}
	s.refs++
	return &opened{Driver: drv, key: key}, nil
}

// urlParams returns the parameters of device name: the URL's query
// (raw), each a known parameter given once, over given (the caller's
// Options.Params, of which only URLParams are read). A parameter given
// both ways with two values is refused: neither may win silently.
func urlParams(name, raw string, given map[string]string) (map[string]string, error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, fmt.Errorf("sim: query of the device URL for %s: %v", name, err)
	}
	out := map[string]string{}
	for _, k := range URLParams {
		if v, ok := given[k]; ok {
			out[k] = v
		}
	}
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(URLParams, k) {
			return nil, fmt.Errorf("sim: unknown URL parameter %q of %s (known: %s)", k, name, strings.Join(URLParams, ", "))
		}
		if n := len(q[k]); n != 1 {
			return nil, fmt.Errorf("sim: URL parameter %q of %s given %d times", k, name, n)
		}
		v := q[k][0]
		if prev, ok := out[k]; ok && prev != v {
			return nil, fmt.Errorf("sim: parameter %q of %s is %q in the URL but %q in the options", k, name, v, prev)
		}
		out[k] = v
	}
	return out, nil
}
