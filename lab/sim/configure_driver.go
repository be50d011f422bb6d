package sim

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// Configure parses configuration lines of the device's dialect and applies
// them to the candidate as YANG edits, all or nothing: the lines edit a
// copy of the candidate's configuration, the difference becomes edits, and
// the store validates and applies them under the candidate lock.
func (d *Driver) Configure(ctx context.Context, owner device.Owner, lines []string) error {
	edits, err := d.PlanConfigure(ctx, owner, lines)
	if err != nil || len(edits) == 0 {
		return err
	}
	return d.store.Edit(ctx, owner, edits)
}

// PlanConfigure implements device.ConfigurePlanner: the edits that lines
// make to owner's candidate, which it does not change.
func (d *Driver) PlanConfigure(_ context.Context, owner device.Owner, lines []string) ([]device.Edit, error) {
	if len(lines) == 0 {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "no configuration lines (%s)", d.dialect)
	}
	for _, l := range lines {
		if strings.ContainsAny(l, "\r\n") {
			return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "one configuration command per line (%s)", d.dialect)
		}
	}
	cand := d.store.Candidate(owner)
	before, err := configFromTree(cand, d.config())
	if err != nil {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "candidate cannot be read as %s configuration: %v", d.dialect, err)
	}
	after := before.clone()
	if err := applyLines(&after, d.dialect, lines); err != nil {
		return nil, err
	}
	if err := dialect.CheckRouting(after.public(), d.dialect); err != nil {
		return nil, err
	}
	return editsBetween(deviceToTree(before.dev, before.hostname), deviceToTree(after.dev, after.hostname), d.schema)
}

var _ device.ConfigurePlanner = (*Driver)(nil)

// configFromTree reads a configuration tree with base's non-configuration facts.
func configFromTree(tree map[string]any, base devConfig) (devConfig, error) {
	dev, err := TreeToDevice(tree, base.dev)
	if err != nil {
		return devConfig{}, err
	}
	return devConfig{dev: dev, hostname: Hostname(tree, base.dev.Name)}, nil
}

// editsBetween turns the difference of two trees into edits: remove what
// was deleted, merge what was added, replace what changed. Values come from
// the new tree itself (yang.Diff redacts secrets in its report).
func editsBetween(oldTree, newTree map[string]any, s *yang.Schema) ([]device.Edit, error) {
	var edits []device.Edit
	for _, ch := range yang.Diff(oldTree, newTree, s) {
		switch ch.Op {
		case yang.ChangeDelete:
			edits = append(edits, device.Edit{Operation: device.OpRemove, Path: ch.Path})
		case yang.ChangeAdd, yang.ChangeModify:
			p, err := yang.ParsePath(ch.Path)
			if err != nil {
				return nil, fmt.Errorf("sim: internal path %q: %w", ch.Path, err)
			}
			v, err := yang.Get(newTree, p)
			if err != nil && !errors.Is(err, yang.ErrNotFound) {
				return nil, err
			}
			op := device.OpMerge
			if ch.Op == yang.ChangeModify {
				op = device.OpReplace
			}
			edits = append(edits, device.Edit{Operation: op, Path: ch.Path, Value: v})
		}
	}
	return edits, nil
}
