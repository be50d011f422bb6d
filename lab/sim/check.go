package sim

import (
	"context"

	"github.com/netmcp/netmcp/device"
)

// CheckEdit reports the error Edit would return, without changing anything
// (see configstore.Store.CheckEdit): the MCP layer refuses an invalid or
// locked change before anyone is asked to approve it.
func (d *Driver) CheckEdit(ctx context.Context, owner device.Owner, edits []device.Edit) error {
	return d.store.CheckEdit(ctx, owner, edits)
}

// CheckConfigure reports the error Configure would return for lines,
// without changing anything.
func (d *Driver) CheckConfigure(ctx context.Context, owner device.Owner, lines []string) error {
	edits, err := d.PlanConfigure(ctx, owner, lines)
	if err != nil || len(edits) == 0 {
		return err // lines that change nothing apply without the lock
	}
	return d.store.CheckEdit(ctx, owner, edits)
}
