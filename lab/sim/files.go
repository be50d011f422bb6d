package sim

import (
	"context"
	"fmt"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// Files a device serves (MCP-NET section 5).
const (
	FileRunning   = "running-config"
	FileStartup   = "startup-config"
	FileCandidate = "candidate-config"
)

// ReadFile returns running-config, startup-config or candidate-config as
// the dialect's configuration text.
func (d *Driver) ReadFile(ctx context.Context, name string) ([]byte, error) {
	switch name {
	case FileRunning:
		at, by := d.lastChange()
		return []byte(d.cli.Render(d.config().public(), at, by)), nil
	case FileStartup:
		return d.treeText(d.store.Startup())
	case FileCandidate:
		owner, _ := d.store.LockHolder()
		return d.treeText(d.store.Candidate(owner))
	}
	return nil, fmt.Errorf("%w: no file %q on %s (have %s, %s, %s)", device.ErrNotFound, name, d.name, FileRunning, FileStartup, FileCandidate)
}

// WriteFile replaces candidate-config (taking the candidate lock) or
// startup-config with dialect text, after parsing and validating it.
func (d *Driver) WriteFile(ctx context.Context, owner device.Owner, name string, data []byte) error {
	if name != FileCandidate && name != FileStartup {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "file %q is read-only on %s: write %s and commit, or %s", name, d.name, FileCandidate, FileStartup)
	}
	c, err := parseConfigText(string(data), d.dialect, d.config().dev)
	if err != nil {
		return err
	}
	tree := deviceToTree(c.dev, c.hostname)
	if err := d.schema.Validate(tree); err != nil {
		return err
	}
	if name == FileStartup {
		return d.store.SetStartup(tree)
	}
	return d.store.ReplaceCandidate(ctx, owner, tree)
}

// treeText renders a configuration tree as dialect text.
func (d *Driver) treeText(tree map[string]any) ([]byte, error) {
	c, err := configFromTree(tree, d.config())
	if err != nil {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "configuration cannot be rendered as %s: %v", d.dialect, err)
	}
	at, by := d.lastChange()
	return []byte(d.cli.Render(c.public(), at, by)), nil
}
