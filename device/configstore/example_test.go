package configstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/configstore"
	"github.com/netmcp/netmcp/yang"
)

// An edit, its diff, a confirmed commit with a 120 s rollback window (as
// MCP-NET section 8.4) and the final confirm.
func Example() {
	ctx := context.Background()
	now := time.Date(2025, 10, 19, 3, 27, 0, 0, time.UTC)
	store, err := configstore.Open(map[string]any{
		"openconfig-system:system": map[string]any{"config": map[string]any{"hostname": "r1"}},
	}, configstore.Options{
		Schema: yang.DefaultSchema(),
		Now:    func() time.Time { return now },
		Log:    func(l device.LogEntry) { fmt.Println(l.Text) },
	})
	if err != nil {
		panic(err)
	}
	defer store.Close()
	op := device.Owner{Session: "s1", User: "alice"}

	err = store.Edit(ctx, op, []device.Edit{{
		Path: "/openconfig-interfaces:interfaces/interface[name='Loopback100']",
		Value: map[string]any{"config": map[string]any{"name": "Loopback100",
			"type": "iana-if-type:softwareLoopback"}},
	}})
	if err != nil {
		panic(err)
	}
	diff, _ := store.Diff(ctx, op)
	for _, c := range diff.Changes {
		fmt.Println(c.Op, c.Path)
	}

	res, _ := store.Commit(ctx, op, device.CommitOptions{Confirmed: 120})
	fmt.Println(res.Status, res.CommitID, res.RollbackTimeout, res.Deadline.Format(time.TimeOnly))
	res, _ = store.Confirm(ctx, op)
	fmt.Println(res.Status)
	// Output:
	// add /openconfig-interfaces:interfaces
	// %CONFIG-5-COMMIT: configuration committed by user alice (session s1), commit-id 2025-10-19-03-27-00, confirmed commit: rolled back unless confirmed within 120 s (by 2025-10-19T03:29:00Z)
	// committed 2025-10-19-03-27-00 120 03:29:00
	// %CONFIG-5-CONFIRM: confirmed commit 2025-10-19-03-27-00 confirmed by user alice (session s1)
	// confirmed
}
