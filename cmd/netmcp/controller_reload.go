package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/inventory"
)

// inventoryDigest names an inventory's devices regardless of their order
// in the file: "sha256:" and the SHA-256 of the device entries sorted by
// name, as JSON. Replicas of a cluster announce it, so that `controller
// status` shows replicas given different inventories.
func inventoryDigest(inv *inventory.Inventory) string {
	devs := slices.Clone(inv.Devices)
	slices.SortFunc(devs, func(a, b inventory.Device) int { return strings.Compare(a.Name, b.Name) })
	b, _ := json.Marshal(devs)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// reloadInventory reads the inventory file again and makes it the fleet's
// (and, in a cluster, the replica's): added devices are connected (or
// claimed), removed ones closed (or handed back), changed ones
// reconnected to their new entry. An inventory that does not load or
// validate is refused and changes nothing.
func reloadInventory(file string, fleet *client.Fleet, replica *clusterReplica) (client.Changes, error) {
	inv, err := inventory.Load(file)
	if err != nil {
		return client.Changes{}, err
	}
	ch, err := fleet.Update(inv)
	if err != nil {
		return ch, err
	}
	if replica != nil {
		names := make([]string, 0, len(inv.Devices))
		for _, d := range inv.Devices {
			names = append(names, d.Name)
		}
		// After the fleet has the new devices: a device claimed now opens
		// its session on it.
		replica.SetInventory(names, inventoryDigest(inv))
	}
	return ch, nil
}

// reloadOnHangup reloads the inventory file on every SIGHUP until ctx is
// done, and reports each outcome on stderr. Without an inventory file
// (--lab) a SIGHUP is reported and ignored. The returned function stops
// listening.
func reloadOnHangup(ctx context.Context, file string, fleet *client.Fleet, replica *clusterReplica, stderr io.Writer) func() {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-hup:
				if !ok {
					return
				}
			}
			if file == "" {
				fmt.Fprintln(stderr, "controller: SIGHUP ignored: the fleet is a --lab, there is no inventory file to reload")
				continue
			}
			ch, err := reloadInventory(file, fleet, replica)
			if err != nil {
				fmt.Fprintf(stderr, "controller: inventory %s refused, nothing changed: %v\n", file, err)
				continue
			}
			fmt.Fprintf(stderr, "controller: inventory %s reloaded: %d devices; %s\n", file, len(fleet.Devices()), describeChanges(ch))
		}
	}()
	return func() {
		signal.Stop(hup)
		close(hup)
		<-done
	}
}

// describeChanges says what an inventory reload changed.
func describeChanges(ch client.Changes) string {
	if ch.Empty() {
		return "no change"
	}
	var parts []string
	for _, p := range []struct {
		what  string
		names []string
	}{{"added", ch.Added}, {"removed", ch.Removed}, {"changed", ch.Changed}} {
		if len(p.names) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", p.what, strings.Join(p.names, ", ")))
		}
	}
	return strings.Join(parts, "; ")
}
