//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/configstore"
	"github.com/netmcp/netmcp/diag"
)

// Dialect is the CLI dialect the driver advertises.
const Dialect = "linux"

// NetnsDir is where iproute2 keeps named network namespaces.
var NetnsDir = "/run/netns"

func init() { device.Register(Scheme, open) }

// Driver is a Linux host or one of its network namespaces. A namespace
// opened with OpenConfig (or by URL) is configurable: it implements
// device.Configurer through a configstore.Store (see config.go); one
// opened with Open, and the host, are read-only.
type Driver struct {
	netns string // "" for the host itself
	name  string

	store   *configstore.Store // nil: read-only
	applyMu sync.Mutex         // one change of the device's configuration at a time

	tel *telemetry // log, events and CPU readings (telemetry.go), from Open to Close
}

// hostLimiter bounds the diagnostics running on this host at once, across
// every Driver of the process (the host and all its namespaces), keyed by
// namespace. Concurrency is bounded first by the MCP layer, per session
// and per server; this limit protects the host from every caller together.
var hostLimiter = diag.NewLimiter(32, 32)

var (
	_ device.Driver    = (*Driver)(nil)
	_ device.Diagnoser = (*Driver)(nil)
	_ device.Telemetry = (*Driver)(nil)
)

// Open returns the read-only driver of this host (netns "") or of the
// named network namespace, which must exist in NetnsDir.
func Open(netns string) (*Driver, error) {
	if netns != "" {
		if !validNetns(netns) {
			return nil, fmt.Errorf("linux: namespace name %q: use 1..64 letters, digits, '_', '-' or '.', not starting with '-' or '.'", netns)
		}
		if _, err := os.Stat(filepath.Join(NetnsDir, netns)); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("linux: no network namespace %q (ip netns list; it should be in %s)", netns, NetnsDir)
			}
			return nil, fmt.Errorf("linux: namespace %q: %w", netns, err)
		}
	}
	name := netns
	if name == "" {
		name, _ = os.Hostname()
		if name == "" {
			name = "localhost"
		}
	}
	return &Driver{netns: netns, name: name, tel: startTelemetry(netns)}, nil
}

// OpenConfig returns the configurable driver of the named network
// namespace: its configuration (interfaces through netlink, FRR's running
// configuration through vtysh) goes through a configstore.Store kept in
// opts.StateDir ("" = in memory). With a state directory, the saved
// running configuration is pushed to the device when it differs (after a
// crash, the store has rolled back an expired confirmed commit). The host
// (netns "") is opened read-only, as Open does.
func OpenConfig(ctx context.Context, netns string, opts device.Options) (*Driver, error) {
	d, err := Open(netns)
	if err != nil || netns == "" {
		return d, err
	}
	if err := d.openStore(ctx, opts); err != nil {
		d.tel.stop()
		return nil, err
	}
	return d, nil
}

// open is the registry's OpenFunc: "linux://" or "linux:///" is the host
// (read-only), "linux://NETNS" a namespace (configurable).
func open(ctx context.Context, u *url.URL, opts device.Options) (device.Driver, error) {
	if u.User != nil || u.Port() != "" || u.RawQuery != "" || u.Fragment != "" || strings.Trim(u.Path, "/") != "" {
		return nil, fmt.Errorf("linux: device URL %q: want linux:// (this host) or linux://NETNS (a network namespace)", u.Redacted())
	}
	return OpenConfig(ctx, u.Hostname(), opts)
}

func validNetns(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] == '-' || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// Netns returns the namespace name, "" for the host.
func (d *Driver) Netns() string { return d.netns }

// prefix is prepended to every argument vector run by the driver.
func (d *Driver) prefix() []string {
	if d.netns == "" {
		return nil
	}
	return []string{"ip", "netns", "exec", d.netns}
}

// Info describes the host or namespace: dialect "linux" ("frr" where FRR
// runs), the kernel release, the operational datastore, and for a
// configurable namespace running and candidate with rollback.
func (d *Driver) Info() device.Info {
	release, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	platform := "Linux " + runtime.GOARCH
	if d.netns != "" {
		platform += " network namespace"
	}
	info := device.Info{
		Name:                d.name,
		Vendor:              "Linux",
		Platform:            platform,
		SoftwareVersion:     strings.TrimSpace(string(release)),
		CLIDialect:          d.dialect(),
		YangModules:         yangModules,
		Datastores:          []device.Datastore{device.Operational},
		NotificationStreams: []string{},
	}
	if d.store != nil {
		info.Datastores = []device.Datastore{device.Running, device.Candidate, device.Operational}
		info.MaxBulkEdit, info.RollbackTimeout = d.store.Limits()
		info.SupportsRollback = true
	}
	return info
}

// Get reads the live state (see get in state_tree.go); on a configurable
// namespace, running is the live configuration and candidate the
// store's (see getConfig in config.go).
func (d *Driver) Get(ctx context.Context, ds device.Datastore, path string) (any, error) {
	if d.store != nil && (ds == device.Running || ds == device.Candidate) {
		return d.getConfig(ctx, ds, path)
	}
	return d.get(ctx, ds, path)
}

// Close stops a confirmed-commit timer, releases the state directory
// (a pending confirmed commit is re-armed by the next open) and stops the
// telemetry's netlink subscription and log tail.
func (d *Driver) Close() error {
	d.tel.stop()
	if d.store != nil {
		return d.store.Close()
	}
	return nil
}
