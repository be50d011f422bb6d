package serve

import (
	"fmt"
	"path/filepath"

	"github.com/netmcp/netmcp/inventory"
)

// InventoryFile is the name of the inventory in a lab's state directory.
const InventoryFile = "inventory.yaml"

// roleHost is the inventory role of an end host: the controller reads it
// as a host, not as a router of the path.
const roleHost = "host"

// Inventory lists the lab's devices with their MCP endpoints: the routers,
// then the hosts (role host, with the topology's addresses); the domains
// its DNS servers serve; with Options.GNMI, each router's gnmi:// URL.
// Every entry's credentials name the lab's token file (token-file, see
// TokenFile), never the token. A real lab's devices are linux:// devices
// tagged real-lab; a simulated lab's are sim:// devices.
func (l *Lab) Inventory() *inventory.Inventory {
	inv := &inventory.Inventory{Name: l.topo.Name, Domains: l.topo.Domains()}
	for i, d := range l.devs {
		e := inventory.Device{Name: d.name, URL: l.URL(d.name), Device: "sim://" + d.name, Dialect: d.drv.Info().CLIDialect,
			Credentials: l.auth.Credentials()}
		if l.real != nil {
			e.Device, e.Tags = "linux://"+l.real.Namespace(d.name), []string{"real-lab"}
		}
		if l.gnmi != nil {
			e.GNMI = l.gnmi.urls[d.name]
		}
		if i >= l.routers {
			e.Role, e.Addresses = roleHost, l.topo.Addresses(d.name)
		}
		inv.Devices = append(inv.Devices, e)
	}
	return inv
}

// writeInventory writes the lab's inventory to its state directory and
// to o.Inventory, if set.
func (l *Lab) writeInventory(o Options) error {
	files := []string{filepath.Join(o.StateDir, InventoryFile)}
	if o.Inventory != "" {
		files = append(files, o.Inventory)
	}
	inv := l.Inventory()
	for _, f := range files {
		if err := inventory.Save(f, inv); err != nil {
			return fmt.Errorf("lab inventory: %w", err)
		}
	}
	l.invFile = files
	return nil
}
