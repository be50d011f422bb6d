package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/controller/cluster"
)

// newControllerStatusCmd builds "netmcp controller status": the replicas
// of a controller cluster, their devices and the ages of their leases.
func newControllerStatusCmd() *cobra.Command {
	var o clusterOptions
	var asJSON bool
	c := &cobra.Command{
		Use:   "status --cluster nats://HOST:4222 [--json]",
		Short: "List a controller cluster's replicas, the devices each holds and the age of each lease",
		Long: "Read the controller cluster's buckets on NATS JetStream (without joining it): the shared\n" +
			"configuration (policy digest, lease TTL), every replica with the time since it last renewed its\n" +
			"presence, and the devices whose lease it holds with the time since each lease was last renewed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runControllerStatus(cmd.Context(), o, asJSON, cmd.OutOrStdout())
		},
	}
	o.addFlags(c.Flags(), false)
	c.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return c
}

func runControllerStatus(ctx context.Context, o clusterOptions, asJSON bool, out io.Writer) error {
	if o.url == "" {
		return withExit(2, errors.New("controller status: give the cluster: --cluster nats://HOST:4222"))
	}
	nc, err := o.connect("netmcp controller status")
	if err != nil {
		return withExit(2, err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err := cluster.ReadStatus(ctx, nc, "")
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	if st.LeaseTTL == "" {
		fmt.Fprintf(out, "cluster %s: no replica has joined\n", o.url)
		return nil
	}
	fmt.Fprintf(out, "cluster %s: %d replicas, %d devices leased, lease TTL %s, policy digest %s\n",
		o.url, len(st.Replicas), st.Devices, st.LeaseTTL, st.PolicyDigest)
	if len(st.Inventories) > 1 {
		fmt.Fprintf(out, "WARNING: the replicas have %d different inventories (give every replica the same --inventory, then SIGHUP them)\n", len(st.Inventories))
	}
	for _, r := range st.Replicas {
		state := fmt.Sprintf("seen %s ago", r.SeenAgo.Round(time.Millisecond))
		if !r.Present {
			state = "gone (its leases expire)"
		}
		inv := ""
		if r.Inventory != "" {
			inv = fmt.Sprintf("  inventory %s (%d devices)", shortDigest(r.Inventory), r.InventoryDevices)
		}
		fmt.Fprintf(out, "%s  %s  %d devices%s\n", r.Instance, state, len(r.Leases), inv)
		for _, l := range r.Leases {
			fmt.Fprintf(out, "  %-24s lease renewed %s ago\n", l.Device, l.Age.Round(time.Millisecond))
		}
	}
	return nil
}

// shortDigest shortens "sha256:<64 hex>" to its first 12 hex digits.
func shortDigest(d string) string {
	if h, ok := strings.CutPrefix(d, "sha256:"); ok && len(h) > 12 {
		return "sha256:" + h[:12]
	}
	return d
}
