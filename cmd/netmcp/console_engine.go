package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/user"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/console"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/inventory"
)

// consoleEngine is the controller's engine as the web console's: the
// intents of `netmcp controller ask`, reports saved in the same store, a
// fix applied through controller.Remediate with the consent the console's
// approval gave.
type consoleEngine struct {
	fleet   *client.Fleet
	hosts   []controller.Host
	domains []string
	store   reportStore
	// describe, in a controller cluster, learns what the other replicas'
	// sessions say of their devices before an intent runs (nil: a single
	// controller).
	describe func(ctx context.Context, names []string)

	mu       sync.Mutex
	applying map[string]bool // reports whose fix is being applied
}

var _ console.Engine = (*consoleEngine)(nil)

// reportStore is where the console's engine keeps reports: a
// controller.Store, or in a controller cluster serve.SharedReports.
type reportStore interface {
	Save(r *controller.Report) (string, error)
	Load(id string) (*controller.Report, error)
	List() ([]string, error)
}

func (e *consoleEngine) controller(progress io.Writer) *controller.Controller {
	return &controller.Controller{Fleet: e.fleet, Hosts: e.hosts, Domains: e.domains, Progress: progress}
}

// Ask implements console.Engine.
func (e *consoleEngine) Ask(ctx context.Context, text string, progress io.Writer) (*console.Report, error) {
	in, err := controller.ParseIntent(text)
	if err != nil {
		return nil, err
	}
	e.describeFleet(ctx)
	rep, err := e.controller(progress).Ask(ctx, in)
	if err != nil {
		return nil, err
	}
	if _, err := e.store.Save(rep); err != nil {
		return nil, fmt.Errorf("report not saved: %w", err)
	}
	return consoleReport(rep)
}

// describeFleet, in a controller cluster, learns what the sessions of
// the devices other replicas hold say of them (capabilities, tools)
// before an intent runs, as the MCP ask does, so that the intent runs as
// on a single controller.
func (e *consoleEngine) describeFleet(ctx context.Context) {
	if e.describe == nil {
		return
	}
	names := make([]string, 0, len(e.fleet.Devices()))
	for _, d := range e.fleet.Devices() {
		names = append(names, d.Name())
	}
	e.describe(ctx, names)
}

// Apply implements console.Engine.
func (e *consoleEngine) Apply(ctx context.Context, id, consent string, progress io.Writer) (*console.Report, error) {
	rep, err := e.load(id)
	if err != nil {
		return nil, err
	}
	if rep.Remediation != nil {
		return nil, fmt.Errorf("report %s: its fix was dealt with already (%s)", id, rep.Remediation.Result)
	}
	e.mu.Lock()
	if e.applying == nil {
		e.applying = map[string]bool{}
	}
	busy := e.applying[id]
	e.applying[id] = true
	e.mu.Unlock()
	if busy {
		return nil, fmt.Errorf("report %s: its fix is being applied already", id)
	}
	defer func() {
		e.mu.Lock()
		delete(e.applying, id)
		e.mu.Unlock()
	}()
	e.describeFleet(ctx) // the intent runs again to verify the fix
	if err := e.controller(progress).Remediate(ctx, rep, consent); err != nil {
		return nil, err
	}
	if _, err := e.store.Save(rep); err != nil {
		return nil, fmt.Errorf("report not saved: %w", err)
	}
	return consoleReport(rep)
}

// Reports implements console.Engine.
func (e *consoleEngine) Reports() ([]string, error) { return e.store.List() }

// Report implements console.Engine.
func (e *consoleEngine) Report(id string) (*console.Report, error) {
	rep, err := e.load(id)
	if err != nil {
		return nil, err
	}
	return consoleReport(rep)
}

// load reads a report by its exact id (the store also takes prefixes and
// "last", which a URL must not).
func (e *consoleEngine) load(id string) (*controller.Report, error) {
	rep, err := e.store.Load(id)
	if err != nil {
		return nil, err
	}
	if rep.ID != id {
		return nil, fmt.Errorf("no report %q", id)
	}
	return rep, nil
}

// consoleReport is the report as the console reads it: its documented
// JSON, decoded, with the intent in words.
func consoleReport(rep *controller.Report) (*console.Report, error) {
	b, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	var out console.Report
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	out.IntentText = rep.Intent.String()
	return &out, nil
}

// consoleElicit answers a device's approval question for the console
// (a fix approved there and being applied), else with next; nil next
// declines.
func consoleElicit(web func() *console.Console, next client.ElicitFunc) client.ElicitFunc {
	return func(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		if c := web(); c != nil {
			if res, ok := c.Elicit(ctx, d, p); ok {
				return res, nil
			}
		}
		if next != nil {
			return next(ctx, d, p)
		}
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
}

// consoleAuditFile is the console's audit log in a lab's state directory.
const consoleAuditFile = "console-audit.jsonl"

// webConsole is a served console with the controller's engine, and what
// closes it.
type webConsole struct {
	ptr   atomic.Pointer[console.Console]
	fleet *client.Fleet // made for the console (nil: the caller's)
	audit *audit.Log    // opened for the console (nil: none or the caller's)
}

// console returns the console once served (nil before).
func (w *webConsole) console() *console.Console { return w.ptr.Load() }

// serveConsole serves the web console of inv on addr with the
// controller's engine: asks, reports in reportsDir, fixes applied after an
// approval in the console. fleet, when given, is the fleet to read and
// act through (its Elicit must go through w.console().Elicit, see
// consoleElicit); nil makes one. auditPath names the audit log to open
// for the console's decisions ("": log is the one, or none).
func serveConsole(addr string, o console.Options, fleet *client.Fleet, inv *inventory.Inventory, hosts []controller.Host, reportsDir, auditPath string, log *audit.Log) (*webConsole, error) {
	w := &webConsole{}
	if fleet == nil {
		f, err := client.New(inv, client.Options{Name: "netmcp-console", Version: version, CallTimeout: time.Minute,
			Elicit: consoleElicit(w.console, nil)})
		if err != nil {
			return nil, err
		}
		w.fleet, fleet = f, f
	}
	if auditPath != "" {
		l, err := audit.Open(auditPath, audit.Options{Sync: audit.SyncWrites})
		if err != nil {
			w.close()
			return nil, err
		}
		w.audit, log = l, l
	}
	o.Fleet, o.Audit = fleet, log
	if o.User == "" {
		o.User = "local"
		if u, err := user.Current(); err == nil && u.Username != "" {
			o.User = u.Username
		}
	}
	if o.Engine == nil {
		o.Engine = &consoleEngine{fleet: fleet, hosts: hosts, domains: inv.Domains, store: controller.Store{Dir: reportsDir}}
	}
	c, err := console.Listen(addr, o)
	if err != nil {
		w.close()
		return nil, err
	}
	w.ptr.Store(c)
	// Routers reached over gNMI put their changes on the map as they
	// happen, not at the next round of polling.
	c.FollowChanges(nil)
	return w, nil
}

// close stops the console and closes what serveConsole opened for it.
func (w *webConsole) close() error {
	var err error
	if c := w.console(); c != nil {
		err = c.Close()
	}
	if w.fleet != nil {
		err = errors.Join(err, w.fleet.Close())
	}
	if w.audit != nil {
		err = errors.Join(err, w.audit.Close())
	}
	return err
}

// printViewerLogins makes a one-time viewer login per name and prints
// "PREFIX (viewer NAME): URL" for each.
func printViewerLogins(w io.Writer, c *console.Console, prefix string, names []string) error {
	for _, n := range names {
		u, err := c.AddLogin(n, console.RoleViewer)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s (viewer %s): %s\n", prefix, n, u)
	}
	return nil
}
