package sim

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"sync"

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

// open serves device.Open("sim://NAME"): Params["topology"] names a
// topology file ("" = the embedded default); Options.StateDir/<NAME> is
// the device's state directory.
func open(ctx context.Context, u *url.URL, opts device.Options) (device.Driver, error) {
	name := u.Host
	if name == "" {
		name = u.Opaque
	}
	if name == "" {
		return nil, fmt.Errorf("sim: URL %q names no device (want sim://r1)", u.String())
	}
	path := opts.Params["topology"]
	if path != "" {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
	}
	realtime := opts.Params["realtime"] == "true" || opts.Params["realtime"] == "1"
	key := path + "\x00" + opts.StateDir + "\x00" + strconv.FormatBool(realtime)
	labsMu.Lock()
	defer labsMu.Unlock()
	s := labs[key]
	if s == nil {
		topo, err := LoadTopology(path)
		if err != nil {
			return nil, err
		}
		lab, err := NewLab(topo, LabOptions{StateDir: opts.StateDir, Realtime: realtime})
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
