package console

import (
	"context"
	"errors"
	"sync"

	"github.com/netmcp/netmcp/device"
)

// followPaths are the trees whose changes put a device on the map again:
// interface states, and the routing protocols' adjacencies and sessions.
var followPaths = []string{pathInterfaces, pathNetInst}

// OpenFunc opens a device's driver from a URL of its inventory entry.
type OpenFunc func(ctx context.Context, rawURL string) (device.Driver, error)

// FollowChanges follows the change stream of every device of the
// inventory that gives a gNMI URL (`gnmi:`, as `netmcp lab up --gnmi`
// writes it), opened with open, when its driver implements
// device.Watcher: a change it reports reads the device again at once
// (Refresh), so the map shows it without waiting for the next round of
// polling. Each tree is followed on its own, so a tree the device cannot
// stream leaves the other followed; what fails is logged. It returns at
// once; the streams end with the console (Close).
func (c *Console) FollowChanges(open OpenFunc) {
	if c.fleet == nil || c.opts.Inventory == nil {
		return
	}
	if open == nil {
		open = func(ctx context.Context, u string) (device.Driver, error) {
			return device.Open(ctx, u, device.Options{})
		}
	}
	for _, d := range c.opts.Inventory.Devices {
		if d.GNMI == "" || c.fleet.Device(d.Name) == nil {
			continue
		}
		c.follows.Add(1)
		go func() {
			defer c.follows.Done()
			c.follow(d.Name, d.GNMI, open)
		}()
	}
}

// follow opens name's driver at rawURL and reads name again on each change
// it reports, until the console closes.
func (c *Console) follow(name, rawURL string, open OpenFunc) {
	drv, err := open(c.ctx, rawURL)
	if err != nil {
		c.log.Warn("console: change stream not opened; polling only", "device", name, "err", err)
		return
	}
	defer drv.Close()
	w, ok := drv.(device.Watcher)
	if !ok {
		c.log.Info("console: the device's driver has no change stream; polling only", "device", name)
		return
	}
	var wg sync.WaitGroup
	for _, p := range followPaths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := w.WatchChanges(c.ctx, []string{p}, func(ch device.Changes) {
				if len(ch.Paths) > 0 {
					c.Refresh(name)
				}
			})
			if err != nil && !errors.Is(err, context.Canceled) {
				c.log.Warn("console: change stream ended; polling only", "device", name, "path", p, "err", err)
			}
		}()
	}
	wg.Wait()
}
