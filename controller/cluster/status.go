package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Status is a cluster as its buckets show it, read without joining.
type Status struct {
	// PolicyDigest and LeaseTTL are the configuration the replicas share
	// (empty before the first replica joined).
	PolicyDigest string `json:"policy_digest"`
	LeaseTTL     string `json:"lease_ttl"`
	// Replicas are the live replica instances, sorted, with their
	// devices; a lease naming an instance no longer present is listed
	// under that instance too (it expires within the TTL).
	Replicas []ReplicaStatus `json:"replicas"`
	// Devices is the number of device leases held.
	Devices int `json:"devices"`
	// Inventories lists the distinct inventory digests the present
	// replicas announce, sorted: more than one means the replicas were
	// given different inventories, and each claims only the devices of
	// its own (a device missing from its preferred replica's inventory is
	// claimed by another after a TTL).
	Inventories []string `json:"inventories"`
}

// ReplicaStatus is one replica instance and the leases it holds.
type ReplicaStatus struct {
	Instance string `json:"instance"`
	// Present says the replica's presence key is live.
	Present bool `json:"present"`
	// SeenAgo is the time since the replica last renewed its presence.
	SeenAgo time.Duration `json:"seen_ago_ns"`
	// Inventory is the digest of the replica's inventory and
	// InventoryDevices its number of devices, as the replica announces
	// them (empty for a replica that announces none).
	Inventory        string        `json:"inventory,omitempty"`
	InventoryDevices int           `json:"inventory_devices"`
	Leases           []LeaseStatus `json:"leases"`
}

// LeaseStatus is one device lease.
type LeaseStatus struct {
	Device string `json:"device"`
	// Age is the time since the lease was last written (claimed or
	// renewed); a lease older than the TTL has expired.
	Age      time.Duration `json:"age_ns"`
	Revision uint64        `json:"revision"`
}

// ReadStatus reads the cluster's configuration, replicas and leases from
// its buckets (prefix "" is DefaultPrefix).
func ReadStatus(ctx context.Context, nc *nats.Conn, prefix string) (*Status, error) {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	st := &Status{Replicas: []ReplicaStatus{}, Inventories: []string{}}
	state, err := js.KeyValue(ctx, prefix+"-state")
	switch {
	case errors.Is(err, jetstream.ErrBucketNotFound):
		return st, nil // no replica ever joined
	case err != nil:
		return nil, fmt.Errorf("cluster: bucket %s-state: %w", prefix, err)
	}
	if e, err := state.Get(ctx, "config"); err == nil {
		var c clusterConfig
		if json.Unmarshal(e.Value(), &c) == nil {
			st.PolicyDigest, st.LeaseTTL = c.PolicyDigest, c.LeaseTTL
		}
	}
	now := time.Now()
	byInstance := map[string]*ReplicaStatus{}
	get := func(instance string) *ReplicaStatus {
		r := byInstance[instance]
		if r == nil {
			r = &ReplicaStatus{Instance: instance, Leases: []LeaseStatus{}}
			byInstance[instance] = r
		}
		return r
	}
	members, err := entries(ctx, js, prefix+"-members")
	if err != nil {
		return nil, err
	}
	digests := map[string]bool{}
	for _, e := range members {
		r := get(e.Key())
		r.Present, r.SeenAgo = true, now.Sub(e.Created())
		p := decodePresence(e.Value())
		r.Inventory, r.InventoryDevices = p.Inventory, p.Devices
		if p.Inventory != "" {
			digests[p.Inventory] = true
		}
	}
	for d := range digests {
		st.Inventories = append(st.Inventories, d)
	}
	sort.Strings(st.Inventories)
	leases, err := entries(ctx, js, prefix+"-leases")
	if err != nil {
		return nil, err
	}
	for _, e := range leases {
		d, ok := keyDevice(e.Key())
		if !ok {
			continue
		}
		r := get(string(e.Value()))
		r.Leases = append(r.Leases, LeaseStatus{Device: d, Age: now.Sub(e.Created()), Revision: e.Revision()})
		st.Devices++
	}
	for _, r := range byInstance {
		sort.Slice(r.Leases, func(i, j int) bool { return r.Leases[i].Device < r.Leases[j].Device })
		st.Replicas = append(st.Replicas, *r)
	}
	sort.Slice(st.Replicas, func(i, j int) bool { return st.Replicas[i].Instance < st.Replicas[j].Instance })
	return st, nil
}

// entries returns the live (put) entries of a bucket.
func entries(ctx context.Context, js jetstream.JetStream, bucket string) ([]jetstream.KeyValueEntry, error) {
	kv, err := js.KeyValue(ctx, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: bucket %s: %w", bucket, err)
	}
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("cluster: read %s: %w", bucket, err)
	}
	defer func() { _ = w.Stop() }()
	var out []jetstream.KeyValueEntry
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("cluster: read %s: %w", bucket, ctx.Err())
		case e, ok := <-w.Updates():
			if !ok || e == nil {
				return out, nil
			}
			out = append(out, e)
		}
	}
}
