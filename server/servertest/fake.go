// Package servertest provides Device, a small in-memory device.Driver with
// every optional interface, for tests and benchmarks of the MCP layer
// while no real driver is needed. Its data follows docs/datamodel.md.
package servertest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// Device is an in-memory router "r1" (dialect cisco-iosxr) with two
// interfaces, a VRF mgmt route table, an ACL and a configuration text.
type Device struct {
	mu        sync.Mutex
	Ifaces    []map[string]any // openconfig interface entries with state
	Routes    map[string][]any // rib name -> routes
	ACL       map[string]any   // openconfig-acl:acl contents
	ARP       string           // output of "show ip arp ..."
	Running   string           // running-config text
	Startup   string
	candidate []device.Edit
	candOwner string
	commits   []device.CommitInfo
	pending   bool
	Logs      []device.LogEntry
	subs      map[int]func(device.Event)
	nsub      int
	Released  []device.Owner
	// Info overrides the default Info when its Name is set.
	InfoOverride device.Info
}

// New returns a Device with its default data.
func New() *Device {
	iface := func(name, desc, oper string) map[string]any {
		return map[string]any{"name": name,
			"config": map[string]any{"name": name, "type": "iana-if-type:ethernetCsmacd", "description": desc, "enabled": true},
			"state":  map[string]any{"name": name, "admin-status": "UP", "oper-status": oper}}
	}
	d := &Device{
		Ifaces: []map[string]any{iface("GigabitEthernet0/0/0/0", "to r2", "UP"), iface("TenGigE0/0/0/0", "", "DOWN"), iface("Vlan100", "users", "UP")},
		Routes: map[string][]any{
			"ipv4-master": {route("0.0.0.0/0", "10.0.12.2", "GigabitEthernet0/0/0/0")},
			"mgmt-ipv4":   {route("10.0.0.0/24", "", "Vlan100"), route("192.168.1.0/24", "", "GigabitEthernet0/0/0/0")},
			"ipv6-master": {route("::/0", "", "GigabitEthernet0/0/0/0")},
		},
		ACL: map[string]any{
			"acl-sets": map[string]any{"acl-set": []any{map[string]any{"name": "UNUSED", "type": "ACL_IPV4"}}},
		},
		ARP:     "Address         Hardware Addr     Interface\n10.0.0.5        00:50:56:ab:cd:ef Vlan100\n",
		Running: "hostname r1\nsnmp-server community public RO\nusername admin password 0 cisco123\n",
		Startup: "hostname r1\n",
		subs:    map[int]func(device.Event){},
	}
	for i := 0; i < 3; i++ {
		d.Logs = append(d.Logs, device.LogEntry{Time: time.Unix(int64(1700000000+i), 0).UTC(), Severity: 5, Message: fmt.Sprintf("event %d", i),
			Text: fmt.Sprintf("Oct 19 03:29:0%d.123: %%SYS-5-EVENT: event %d", i, i)})
	}
	return d
}

func route(prefix, nh, ifname string) map[string]any {
	hop := map[string]any{"outgoing-interface": ifname}
	if nh != "" {
		hop["next-hop-address"] = nh
	}
	return map[string]any{"destination-prefix": prefix, "active": true, "source-protocol": "ietf-routing:static", "next-hop": hop}
}

// Info implements device.Driver.
func (d *Device) Info() device.Info {
	if d.InfoOverride.Name != "" {
		return d.InfoOverride
	}
	return device.Info{Name: "r1", Vendor: "netmcp", Platform: "fake", SoftwareVersion: "7.5.3", CLIDialect: "huawei-vrp",
		YangModules:         []string{"ietf-interfaces", "openconfig-interfaces"},
		Datastores:          []device.Datastore{device.Running, device.Candidate, device.Operational},
		NotificationStreams: []string{"syslog", "netconf-stream"},
		MaxBulkEdit:         1000, SupportsRollback: true, RollbackTimeout: 300}
}

func clone(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// Get implements device.Driver for the few paths the MCP layer reads.
func (d *Device) Get(_ context.Context, ds device.Datastore, path string) (any, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case path == "/openconfig-interfaces:interfaces":
		l := make([]any, len(d.Ifaces))
		for i, f := range d.Ifaces {
			l[i] = f
		}
		return clone(map[string]any{"interface": l}), nil
	case strings.HasPrefix(path, "/openconfig-interfaces:interfaces/interface[name="):
		name := strings.Trim(strings.TrimSuffix(strings.TrimPrefix(path, "/openconfig-interfaces:interfaces/interface[name="), "]"), `'"`)
		for _, f := range d.Ifaces {
			if f["name"] == name {
				return clone(f), nil
			}
		}
		return nil, device.ErrNotFound
	case path == "/ietf-routing:routing/ribs":
		var ribs []any
		for _, n := range []string{"ipv4-master", "ipv6-master", "mgmt-ipv4"} {
			ribs = append(ribs, map[string]any{"name": n, "routes": map[string]any{"route": d.Routes[n]}})
		}
		return clone(map[string]any{"rib": ribs}), nil
	case path == "/openconfig-acl:acl":
		return clone(d.ACL), nil
	case strings.HasPrefix(path, "/openconfig-vlan:vlans"):
		return map[string]any{}, nil
	}
	return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "path %s is not modelled by this device", path).WithPath(path)
}

// Exec implements device.Driver.
func (d *Device) Exec(ctx context.Context, cmd string) (string, error) {
	switch {
	case strings.HasPrefix(cmd, "show ip arp"):
		return d.ARP, nil
	case cmd == "show version":
		return "netmcp fake 7.5.3\n", nil
	case cmd == "show slow":
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(10 * time.Second):
			return "slow\n", nil
		}
	}
	return "", netproto.Errorf(netproto.CodeConfigIncompatible, "unknown command %q", cmd)
}

// Close implements device.Driver.
func (d *Device) Close() error { return nil }

func (d *Device) lock(o device.Owner) error {
	if d.candOwner != "" && d.candOwner != o.Session {
		return netproto.Errorf(netproto.CodeAccessDenied, "the candidate is locked by session %s", d.candOwner).Retryable()
	}
	d.candOwner = o.Session
	return nil
}

// Edit implements device.Configurer; a VLAN id above 4094 is refused as in MCP-NET 7.2.
func (d *Device) Edit(_ context.Context, o device.Owner, edits []device.Edit) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.lock(o); err != nil {
		return err
	}
	for _, e := range edits {
		if m, ok := e.Value.(map[string]any); ok {
			if id, ok := m["vlan-id"].(float64); ok && id > 4094 {
				return &netproto.Error{Code: netproto.CodeConfigIncompatible, ErrorData: netproto.ErrorData{
					Detail: fmt.Sprintf("VLAN %d > maximum 4094", int(id)), Path: "/openconfig-vlan:vlans/vlan/config/vlan-id"}}
			}
		}
	}
	d.candidate = append(d.candidate, edits...)
	return nil
}

// Configure implements device.Configurer: "interface X" / "description Y" lines.
func (d *Device) Configure(ctx context.Context, o device.Owner, lines []string) error {
	var edits []device.Edit
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || l == "!" {
			continue
		}
		if strings.HasPrefix(l, "bogus") {
			return netproto.Errorf(netproto.CodeConfigIncompatible, "line %q: unknown command", l)
		}
		edits = append(edits, device.Edit{Operation: device.OpMerge, Path: "/cli", Value: l})
	}
	return d.Edit(ctx, o, edits)
}

// Diff implements device.Configurer.
func (d *Device) Diff(_ context.Context, o device.Owner) (device.Diff, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var df device.Diff
	for _, e := range d.candidate {
		df.Changes = append(df.Changes, device.Change{Op: "add", Path: e.Path, New: e.Value})
		df.Unified += "+ " + e.Path + "\n"
	}
	return df, nil
}

// Validate implements device.Configurer.
func (d *Device) Validate(context.Context, device.Owner) error { return nil }

// Commit implements device.Configurer.
func (d *Device) Commit(_ context.Context, o device.Owner, opts device.CommitOptions) (device.CommitResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.lock(o); err != nil {
		return device.CommitResult{}, err
	}
	if opts.DryRun {
		return device.CommitResult{Status: device.StatusDryRun}, nil
	}
	if len(d.candidate) == 0 {
		return device.CommitResult{Status: device.StatusNoChanges}, nil
	}
	id := fmt.Sprintf("%d", len(d.commits)+1)
	d.commits = append(d.commits, device.CommitInfo{ID: id, Session: o.Session, Comment: opts.Comment, Status: device.StatusCommitted, Confirmed: opts.Confirmed})
	d.candidate, d.candOwner = nil, ""
	d.pending = opts.Confirmed > 0
	return device.CommitResult{Status: device.StatusCommitted, CommitID: id, RollbackTimeout: opts.Confirmed}, nil
}

// Confirm implements device.Configurer.
func (d *Device) Confirm(context.Context, device.Owner) (device.CommitResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.pending {
		return device.CommitResult{}, netproto.Errorf(netproto.CodeConfirmedCommitTimeout, "no confirmed commit is pending")
	}
	d.pending = false
	return device.CommitResult{Status: device.StatusConfirmed}, nil
}

// CancelCommit implements device.Configurer.
func (d *Device) CancelCommit(context.Context, device.Owner) (device.CommitResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pending = false
	return device.CommitResult{Status: device.StatusCancelled}, nil
}

// Discard implements device.Configurer.
func (d *Device) Discard(_ context.Context, o device.Owner) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.candidate, d.candOwner = nil, ""
	return nil
}

// Rollback implements device.Configurer.
func (d *Device) Rollback(_ context.Context, o device.Owner, id string) (device.CommitResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if id != "" && (id < "1" || len(d.commits) == 0) {
		return device.CommitResult{}, netproto.Errorf(netproto.CodeRollbackFailed, "no commit %q", id)
	}
	return device.CommitResult{Status: device.StatusRolledBack, CommitID: fmt.Sprint(len(d.commits) + 1)}, nil
}

// History implements device.Configurer.
func (d *Device) History(context.Context) ([]device.CommitInfo, error) { return d.commits, nil }

// Release implements device.Configurer.
func (d *Device) Release(o device.Owner) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.Released = append(d.Released, o)
	if d.candOwner == o.Session {
		d.candidate, d.candOwner = nil, ""
	}
}

// Locker returns the session holding the candidate ("" if none).
func (d *Device) Locker() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.candOwner
}

// ReadFile implements device.FileStore.
func (d *Device) ReadFile(_ context.Context, name string) ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch name {
	case "running-config":
		return []byte(d.Running), nil
	case "startup-config":
		return []byte(d.Startup), nil
	case "candidate-config":
		return []byte(d.Running), nil
	}
	return nil, fmt.Errorf("no file %q", name)
}

// WriteFile implements device.FileStore: a line starting with "!!" is a syntax error.
func (d *Device) WriteFile(_ context.Context, o device.Owner, name string, data []byte) error {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "!!") {
			return netproto.Errorf(netproto.CodeYangSyntaxError, "line %d: syntax error", i+1)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if name == "startup-config" {
		d.Startup = string(data)
	}
	return nil
}

// CPU implements device.Telemetry.
func (d *Device) CPU(context.Context) (device.CPUStats, error) {
	return device.CPUStats{Percent: 12.5, OneMinute: 10, FiveMinute: 9, Time: time.Unix(1700000000, 0).UTC(), Slot: "1/0"}, nil
}

// Memory implements device.Telemetry.
func (d *Device) Memory(context.Context) (device.MemoryStats, error) {
	return device.MemoryStats{Total: 8 << 30, Used: 2 << 30, Free: 6 << 30, Time: time.Unix(1700000000, 0).UTC()}, nil
}

// Syslog implements device.Telemetry.
func (d *Device) Syslog(_ context.Context, n int) ([]device.LogEntry, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n > len(d.Logs) {
		n = len(d.Logs)
	}
	return append([]device.LogEntry(nil), d.Logs[len(d.Logs)-n:]...), nil
}

// Crashinfo implements device.Telemetry.
func (d *Device) Crashinfo(_ context.Context, slot string) ([]device.CrashRecord, error) {
	if slot == "0/RP0" {
		return []device.CrashRecord{{Time: time.Unix(1700000000, 0).UTC(), Slot: slot, Process: "bgp", Reason: "SIGSEGV"}}, nil
	}
	return nil, nil
}

// Subscribe implements device.Telemetry.
func (d *Device) Subscribe(fn func(device.Event)) func() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.nsub++
	id := d.nsub
	d.subs[id] = fn
	return func() { d.mu.Lock(); delete(d.subs, id); d.mu.Unlock() }
}

// Emit delivers an event to the subscribers (a syslog event is also logged).
func (d *Device) Emit(ev device.Event) {
	d.mu.Lock()
	if ev.Log != nil {
		d.Logs = append(d.Logs, *ev.Log)
	}
	fns := make([]func(device.Event), 0, len(d.subs))
	for _, f := range d.subs {
		fns = append(fns, f)
	}
	d.mu.Unlock()
	for _, f := range fns {
		f(ev)
	}
}

// CLIOnly is a driver with only device.Driver: no configuration, files,
// telemetry or YANG, to test unavailable tools.
type CLIOnly struct{ D *Device }

// Info implements device.Driver.
func (c CLIOnly) Info() device.Info {
	i := c.D.Info()
	i.YangModules = nil
	return i
}

// Get implements device.Driver.
func (c CLIOnly) Get(ctx context.Context, ds device.Datastore, path string) (any, error) {
	return c.D.Get(ctx, ds, path)
}

// Exec implements device.Driver.
func (c CLIOnly) Exec(ctx context.Context, cmd string) (string, error) { return c.D.Exec(ctx, cmd) }

// Close implements device.Driver.
func (c CLIOnly) Close() error { return nil }
