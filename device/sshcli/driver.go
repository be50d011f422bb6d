package sshcli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/scrapli/scrapligo/driver/network"
	"github.com/scrapli/scrapligo/driver/opoptions"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/configstore"
	"github.com/netmcp/netmcp/device/ocview"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

func init() { device.Register(Scheme, open) }

// MaxCommandLen bounds one CLI line sent to a device.
const MaxCommandLen = 1024

// Driver is one device reached over SSH and driven through its CLI. It
// implements device.Driver and device.Configurer; all methods are safe for
// concurrent use (commands are serialised on the one session).
type Driver struct {
	cfg   Config
	d     *dialect
	sess  *session
	store *configstore.Store
}

var (
	_ device.Driver     = (*Driver)(nil)
	_ device.Configurer = (*Driver)(nil)
)

// open is the registry's OpenFunc for ssh:// URLs.
func open(ctx context.Context, u *url.URL, opts device.Options) (device.Driver, error) {
	cfg, err := ParseURL(u)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg, opts)
}

// Open logs in to the device, turns paging off and reads its running
// configuration (the base of the commit history). The session stays open;
// a dropped one is reopened by the next call.
func Open(ctx context.Context, cfg Config, opts device.Options) (*Driver, error) {
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("ssh: %w", err)
	}
	if cfg.InsecureIgnoreHostKey {
		slog.Warn("ssh: host key checking is OFF for this device (insecure-ignore-host-key=true): a man in the middle would not be noticed",
			"device", cfg.Name, "address", cfg.address())
	}
	drv := &Driver{cfg: cfg, d: dialects[cfg.Dialect]}
	drv.sess = &session{cfg: &drv.cfg, d: drv.d}
	text, err := drv.runningText(ctx)
	if err != nil {
		drv.sess.close()
		return nil, err
	}
	st, err := configstore.Open(textTree(text), configstore.Options{
		Dir: opts.StateDir, MaxBulkEdit: maxBulkEdit, DefaultConfirmTimeout: rollbackTimeout,
		Apply: drv.applyRunning,
	})
	if err != nil {
		drv.sess.close()
		return nil, fmt.Errorf("ssh: %s: %w", cfg.Name, err)
	}
	drv.store = st
	return drv, nil
}

// Limits advertised in the capability object.
const (
	maxBulkEdit     = 1000
	rollbackTimeout = 300
)

// Info describes the device.
func (drv *Driver) Info() device.Info {
	return device.Info{
		Name: drv.cfg.Name, Vendor: drv.d.vendor, Platform: drv.d.vendor + " CLI over SSH",
		CLIDialect:          drv.d.name,
		YangModules:         []string{"ietf-interfaces", "ietf-ip", "ietf-routing", ocview.Module},
		Datastores:          []device.Datastore{device.Running, device.Candidate, device.Operational},
		NotificationStreams: []string{},
		MaxBulkEdit:         maxBulkEdit,
		SupportsRollback:    true,
		RollbackTimeout:     rollbackTimeout,
	}
}

// Logins reports how many times the driver logged in (1 + reconnects).
func (drv *Driver) Logins() int {
	drv.sess.mu.Lock()
	defer drv.sess.mu.Unlock()
	return drv.sess.logins
}

// Close logs out and stops any confirmed-commit timer.
func (drv *Driver) Close() error {
	var err error
	if drv.store != nil {
		err = drv.store.Close()
	}
	drv.sess.close()
	return err
}

// checkLine refuses what must never reach a device's CLI as one line:
// control characters (a newline would be a second command, ^Z or ^C change
// modes), and overlong input.
func checkLine(line string) error {
	if strings.TrimSpace(line) == "" {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "empty command")
	}
	if len(line) > MaxCommandLen {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "command longer than %d bytes", MaxCommandLen)
	}
	for _, r := range line {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return netproto.Errorf(netproto.CodeConfigIncompatible, "command contains a control character (%U): one command per call, no newlines", r)
		}
	}
	return nil
}

// Exec runs one read command of the dialect (its first word is one of the
// dialect's read verbs: show, display) and returns its output without the
// echo and the prompt. A command the device refuses gives -32084 with the
// device's message. If the connection was lost, the driver logs in again
// and runs the command once more (reads are safe to repeat).
func (drv *Driver) Exec(ctx context.Context, command string) (string, error) {
	if err := checkLine(command); err != nil {
		return "", err
	}
	command = strings.TrimSpace(command)
	verb := strings.ToLower(strings.Fields(command)[0])
	ok := false
	for _, v := range drv.d.readVerbs {
		ok = ok || verb == v
	}
	if !ok {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible,
			"%q is not a read command of %s (it must start with %s); configuration goes through network.cli.configure",
			truncate(command, 80), drv.d.name, strings.Join(drv.d.readVerbs, " or "))
	}
	return drv.read(ctx, command)
}

// read runs a read command, retrying once on a new login if the
// connection was lost.
func (drv *Driver) read(ctx context.Context, command string) (string, error) {
	var out string
	op := func(nd *network.Driver, timeout time.Duration) error {
		r, err := nd.SendCommand(command, opoptions.WithTimeoutOps(timeout))
		if err != nil {
			return err
		}
		if r.Failed != nil {
			return netproto.Errorf(netproto.CodeConfigIncompatible, "%s refused %q: %s", drv.cfg.Name, truncate(command, 80), firstLine(r.Result))
		}
		out = r.Result
		return nil
	}
	err := drv.sess.do(ctx, op)
	if errors.Is(err, errBroken) {
		err = drv.sess.do(ctx, op)
	}
	if errors.Is(err, errBroken) {
		return "", netproto.Errorf(netproto.CodeUnreachable, "ssh %s: %v", drv.cfg.address(), err).Retryable()
	}
	return out, err
}

// runningText reads the running configuration as the device prints it.
func (drv *Driver) runningText(ctx context.Context) (string, error) {
	return drv.read(ctx, drv.d.running)
}

// Get returns the subtree at path. The operational datastore is read from
// the device's show commands, parsed into ietf-interfaces and
// ietf-routing (see the package doc for which dialect gives what), with
// the openconfig-interfaces view of the interfaces (package
// device/ocview); running and candidate hold the configuration as the
// device prints it, one line per entry, under
// netmcp-cli:configuration/line, and the openconfig-interfaces view of its
// interface blocks (see withView).
func (drv *Driver) Get(ctx context.Context, ds device.Datastore, path string) (any, error) {
	p, err := device.ParsePath(path)
	if err != nil {
		return nil, err
	}
	var tree map[string]any
	switch ds {
	case device.Operational, "":
		tree, err = drv.operational(ctx, p)
		if err != nil {
			return nil, err
		}
	case device.Running:
		text, err := drv.runningText(ctx)
		if err != nil {
			return nil, err
		}
		tree = drv.withView(textTree(text))
	case device.Candidate:
		owner, _ := drv.store.LockHolder()
		tree = drv.withView(drv.store.Candidate(owner))
	default:
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "unknown datastore %q (have running, candidate, operational)", ds)
	}
	v, err := yang.Get(tree, p)
	if errors.Is(err, yang.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s in %s", device.ErrNotFound, p.String(), cmpOr(string(ds), "operational"))
	}
	return v, err
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
