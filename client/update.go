package client

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/netmcp/netmcp/inventory"
)

// ErrRemoved is wrapped by the error of a call on a device that
// Fleet.Update removed from the fleet.
var ErrRemoved = errors.New("device removed from the inventory")

// Changes are the devices an Fleet.Update added, removed or changed, by
// name, in the order of the inventory they come from.
type Changes struct {
	// Added are in the new inventory only.
	Added []string
	// Removed are in the old inventory only: their sessions are closed.
	Removed []string
	// Changed are in both with another entry (URL, credentials, ...):
	// their session is closed and a new one opened to the new entry.
	Changed []string
}

// Empty reports whether the update changed nothing.
func (c Changes) Empty() bool { return len(c.Added)+len(c.Removed)+len(c.Changed) == 0 }

// Update makes the fleet the devices of inv while it runs. The inventory
// is validated first: an invalid one is refused and changes nothing. A
// removed device's supervisor is stopped and its session closed, and
// calls on it fail with ErrRemoved; a changed device (same name, another
// entry) is replaced by a new Device whose supervisor runs if the old one
// ran; an added device is started if the fleet was started (Start,
// Connect), and is released otherwise (a fleet shared by controller
// replicas holds only the devices it is told to Hold). Devices left as
// they were keep their sessions. Update waits until the removed and
// replaced sessions are closed.
func (f *Fleet) Update(inv *inventory.Inventory) (Changes, error) {
	var ch Changes
	if inv == nil {
		return ch, errors.New("client: nil inventory")
	}
	if err := inv.Validate(); err != nil {
		return ch, err
	}
	f.mu.Lock()
	switch {
	case f.view:
		f.mu.Unlock()
		return ch, errors.New("client: Update on a view of a fleet")
	case f.closed:
		f.mu.Unlock()
		return ch, ErrClosed
	}
	f.devMu.RLock()
	old := f.byName
	f.devMu.RUnlock()
	devs := make([]*Device, 0, len(inv.Devices))
	byName := make(map[string]*Device, len(inv.Devices))
	var gone []*Device // removed or replaced: their supervisors stop
	replaced := map[*Device]bool{}
	var start []*Device
	for _, entry := range inv.Devices {
		d := old[entry.Name]
		switch {
		case d == nil:
			d = newDevice(f, entry)
			ch.Added = append(ch.Added, entry.Name)
			if f.started {
				start = append(start, d)
			} else {
				d.released = true
				d.state = StateReleased
				d.err = ErrReleased
			}
		case !reflect.DeepEqual(d.inv, entry):
			held := d.stop != nil
			d.mu.Lock()
			released := d.released
			d.mu.Unlock()
			gone = append(gone, d)
			replaced[d] = true
			d = newDevice(f, entry)
			ch.Changed = append(ch.Changed, entry.Name)
			if held {
				start = append(start, d)
			} else if released {
				d.released = true
				d.state = StateReleased
				d.err = ErrReleased
			}
		}
		devs = append(devs, d)
		byName[entry.Name] = d
	}
	for _, d := range f.devices() {
		if byName[d.Name()] == nil {
			gone = append(gone, d)
			ch.Removed = append(ch.Removed, d.Name())
		}
	}
	var stopped []chan struct{}
	for _, d := range gone {
		if d.stop != nil {
			d.stop()
			stopped = append(stopped, d.stopped)
			d.stop, d.stopped = nil, nil
		}
	}
	f.devMu.Lock()
	f.devs, f.byName = devs, byName
	f.devMu.Unlock()
	for _, d := range start {
		d.state = StateConnecting
		f.startLocked(d)
	}
	f.mu.Unlock()
	for _, done := range stopped {
		<-done
	}
	for _, d := range gone {
		d.mu.Lock()
		d.released = false // a call on it fails here, it is not forwarded
		d.mu.Unlock()
		if replaced[d] {
			d.setState(StateClosed, fmt.Errorf("%w: its entry changed, the fleet has a new device of that name", ErrRemoved))
		} else {
			d.setState(StateClosed, ErrRemoved)
		}
		d.firstOnce.Do(func() { close(d.first) })
	}
	return ch, nil
}
