package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/pflag"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/console"
	"github.com/netmcp/netmcp/controller/cluster"
	"github.com/netmcp/netmcp/controller/serve"
	"github.com/netmcp/netmcp/inventory"
)

// clusterOptions are the flags that make `netmcp controller serve` a
// replica of a controller cluster on NATS JetStream (docs/cluster.md), and
// that `netmcp controller status` reads the cluster with.
type clusterOptions struct {
	url, creds, tlsCA string
	name              string        // serve only: the replica's name
	leaseTTL          time.Duration // serve only
}

// addFlags binds the connection flags, and with serve the replica's.
func (o *clusterOptions) addFlags(f *pflag.FlagSet, serve bool) {
	f.StringVar(&o.url, "cluster", "", "NATS server(s) of the controller cluster, nats://host:4222 (comma-separated; JetStream enabled)")
	f.StringVar(&o.creds, "cluster-creds", "", "NATS credentials file (.creds: user JWT and NKey seed) for --cluster")
	f.StringVar(&o.tlsCA, "cluster-tls-ca", "", "CA bundle (PEM) that signed the NATS servers' certificates: connect over TLS")
	if serve {
		f.StringVar(&o.name, "cluster-name", "", "this replica's name in the cluster, [A-Za-z0-9_-] (default: hostname-pid)")
		f.DurationVar(&o.leaseTTL, "cluster-lease-ttl", cluster.DefaultLeaseTTL, "lifetime of a device lease without renewal, whole seconds; every replica of a cluster must use the same")
	}
}

// check refuses the cluster flags without --cluster.
func (o clusterOptions) check() error {
	if o.url == "" && (o.creds != "" || o.tlsCA != "" || o.name != "") {
		return errors.New("--cluster-creds, --cluster-tls-ca and --cluster-name need --cluster")
	}
	return nil
}

// connect opens the NATS connection of --cluster.
func (o clusterOptions) connect(name string) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1)}
	if o.creds != "" {
		if _, err := os.Stat(o.creds); err != nil {
			return nil, fmt.Errorf("--cluster-creds: %w", err)
		}
		opts = append(opts, nats.UserCredentials(o.creds))
	}
	if o.tlsCA != "" {
		if _, err := os.Stat(o.tlsCA); err != nil {
			return nil, fmt.Errorf("--cluster-tls-ca: %w", err)
		}
		opts = append(opts, nats.RootCAs(o.tlsCA))
	}
	nc, err := nats.Connect(o.url, opts...)
	if err != nil {
		return nil, fmt.Errorf("--cluster %s: %w", o.url, err)
	}
	return nc, nil
}

var unsafeNameRE = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// replicaName is --cluster-name, or hostname-pid.
func (o clusterOptions) replicaName() string {
	if o.name != "" {
		return o.name
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "controller"
	}
	host, _, _ = strings.Cut(host, ".")
	return fmt.Sprintf("%s-%d", strings.Trim(unsafeNameRE.ReplaceAllString(host, "-"), "-"), os.Getpid())
}

// clusterReplica is a controller joined to a cluster.
type clusterReplica struct {
	*cluster.Replica
	sessions *cluster.FleetSessions
	nc       *nats.Conn
}

// Describe learns what the sessions of the devices other replicas hold
// say of them (serve.Cluster).
func (r *clusterReplica) Describe(ctx context.Context, names []string) (int, error) {
	return r.sessions.Describe(ctx, names)
}

// leave hands the replica's devices back and closes its connection.
func (r *clusterReplica) leave() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = r.Leave(ctx)
	r.nc.Close()
}

// joinCluster joins the fleet to the cluster of o: every device starts
// released, the replica holds the sessions of the devices whose lease it
// owns, and the calls on the others go to their owner. sessions must be
// the fleet's client.Options.Remote and RemoteRequest; elicit answers the
// approval questions other replicas relay for the calls this one
// forwarded them; invDigest names the inventory ("": its device names).
func joinCluster(ctx context.Context, o clusterOptions, fleet *client.Fleet, sessions *cluster.FleetSessions, inv *inventory.Inventory, invDigest, policyDigest string, elicit client.ElicitFunc, stderr io.Writer) (*clusterReplica, error) {
	name := o.replicaName()
	nc, err := o.connect("netmcp-controller " + name)
	if err != nil {
		return nil, err
	}
	sessions.Fleet = fleet
	devices := make([]string, 0, len(inv.Devices))
	for _, d := range inv.Devices {
		_ = fleet.Release(d.Name)
		devices = append(devices, d.Name)
	}
	jctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	r, err := cluster.Join(jctx, cluster.Config{Name: name, Conn: nc, LeaseTTL: o.leaseTTL, PolicyDigest: policyDigest,
		InventoryDigest: invDigest, Sessions: sessions, Elicit: cluster.ElicitVia(fleet, elicit)}, devices)
	if err != nil {
		nc.Close()
		if errors.Is(err, cluster.ErrPolicyMismatch) {
			return nil, fmt.Errorf("refusing to join the cluster at %s: this replica's policy differs from the cluster's (give every replica the same --policy): %w", o.url, err)
		}
		return nil, fmt.Errorf("joining the cluster at %s: %w", o.url, err)
	}
	sessions.Bind(r)
	fmt.Fprintf(stderr, "controller: replica %s joined the cluster at %s (%d devices, lease TTL %v)\n", r.Instance(), o.url, len(devices), o.leaseTTL)
	return &clusterReplica{Replica: r, sessions: sessions, nc: nc}, nil
}

// shareAudit appends every record of the replica's audit log to the
// cluster's audit chain as well (one JetStream stream for every replica,
// `netmcp audit verify --cluster`). A record the chain could not take
// stays in the replica's own log, and stderr says so.
func (r *clusterReplica) shareAudit(ctx context.Context, log *audit.Log, stderr io.Writer) error {
	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	chain, err := r.Audit(actx)
	if err != nil {
		return err
	}
	log.AddSink(sharedAudit{chain: chain, stderr: stderr})
	return nil
}

// sharedAudit is the cluster's audit chain as a sink of a replica's log.
type sharedAudit struct {
	chain  *cluster.AuditLog
	stderr io.Writer
}

// Export appends rec to the cluster's chain.
func (s sharedAudit) Export(rec audit.Record) error {
	err := s.chain.Export(rec)
	if err != nil {
		fmt.Fprintf(s.stderr, "controller: audit record %d not in the cluster's audit chain (it is in this replica's log): %v\n", rec.Seq, err)
	}
	return err
}

// pending opens the cluster's fixes waiting for approval, for the web
// console.
func (r *clusterReplica) pending(ctx context.Context) (*cluster.PendingFixes, error) {
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return r.Pending(pctx)
}

// describeTimeout bounds the descriptions of the other replicas' devices
// before the console's intent runs (the MCP ask's bound).
const describeTimeout = 30 * time.Second

// describeFor is the console's describe: what the sessions of the devices
// among names that other replicas hold say of them, learned before an
// intent runs; a device left undescribed is still read, and stderr says
// so.
func (r *clusterReplica) describeFor(stderr io.Writer) func(ctx context.Context, names []string) {
	return func(ctx context.Context, names []string) {
		ctx, cancel := context.WithTimeout(ctx, describeTimeout)
		defer cancel()
		if _, err := r.Describe(ctx, names); err != nil {
			fmt.Fprintf(stderr, "controller: console ask: devices of other replicas not described: %v\n", err)
		}
	}
}

// sharedD2D opens the cluster's D2D reports: submit_report keeps each in
// the cluster (with a copy in dir), and the console and the D2D resources
// of every replica list and read them there.
func (r *clusterReplica) sharedD2D(ctx context.Context, dir string) (serve.SharedD2D, error) {
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	d, err := r.D2D(dctx)
	if err != nil {
		return serve.SharedD2D{}, err
	}
	return serve.NewSharedD2D(dir, clusterD2D{d}), nil
}

// clusterD2D is the cluster's D2D reports as serve.D2DCluster.
type clusterD2D struct{ *cluster.D2DReports }

// Add keeps b under id; a different report held under id is
// serve.ErrD2DHeld.
func (c clusterD2D) Add(id string, b []byte) (bool, error) {
	dup, err := c.D2DReports.Add(id, b)
	if errors.Is(err, cluster.ErrD2DConflict) {
		return false, fmt.Errorf("%w: %s (held by the cluster)", serve.ErrD2DHeld, id)
	}
	return dup, err
}

// gates opens the cluster's device questions, for the web console: a
// device's approval question waits in every replica's console, and the
// first decision, through any, reaches the device through the replica
// holding its call.
func (r *clusterReplica) gates(ctx context.Context) (console.GateStore, error) {
	gctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	g, err := r.Gates(gctx)
	if err != nil {
		return nil, err
	}
	return clusterGates{g}, nil
}

// clusterGates is the cluster's device questions as a console.GateStore.
type clusterGates struct{ *cluster.GateQuestions }

// List returns the questions held with their decisions.
func (g clusterGates) List() ([]console.GateRecord, error) {
	recs, err := g.GateQuestions.List()
	if err != nil {
		return nil, err
	}
	out := make([]console.GateRecord, len(recs))
	for i, r := range recs {
		out[i] = console.GateRecord{Question: r.Question, Decision: r.Decision}
	}
	return out, nil
}
