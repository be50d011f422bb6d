package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
)

// presence is the value of a replica's key in the members bucket: what
// inventory the replica manages, so that replicas given different
// inventories show in the cluster's status.
type presence struct {
	// Inventory is the digest of the replica's inventory
	// (Config.InventoryDigest, or NamesDigest of its devices).
	Inventory string `json:"inventory"`
	// Devices is the number of devices in it.
	Devices int `json:"devices"`
}

// NamesDigest is the digest of a device list regardless of its order:
// "sha256:" and the hex SHA-256 of the sorted names, one a line.
func NamesDigest(devices []string) string {
	names := slices.Clone(devices)
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// SetInventory replaces the set of devices the cluster manages, as this
// replica sees it, with digest naming the inventory ("" for NamesDigest
// of devices). A device that left it is handed back by its owner at the
// next round, its session closed first; a device that joined it is
// claimed by its preferred replica, or by any replica once it has gone
// unowned for a TTL. The digest is published with the replica's presence
// at once, so that `controller status` shows replicas whose inventories
// differ. Give the replica's fleet the new devices before calling it
// (client.Fleet.Update): a claimed device's session opens on the fleet.
func (r *Replica) SetInventory(devices []string, digest string) {
	if digest == "" {
		digest = NamesDigest(devices)
	}
	r.mu.Lock()
	r.inventory = make(map[string]bool, len(devices))
	for _, d := range devices {
		r.inventory[d] = true
	}
	r.presence = presence{Inventory: digest, Devices: len(r.inventory)}
	r.presenceDirty = true
	r.mu.Unlock()
	r.poke()
}

// InventoryDigest is the digest of the inventory this replica manages.
func (r *Replica) InventoryDigest() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.presence.Inventory
}

// announce writes the replica's presence with the lease TTL.
func (r *Replica) announce(ctx context.Context) error {
	r.mu.Lock()
	b, _ := json.Marshal(r.presence)
	r.presenceDirty = false
	r.mu.Unlock()
	_, err := r.put(ctx, r.members, r.self, b, nil)
	return err
}

// announceIfChanged writes the presence when the inventory changed since
// it was last written.
func (r *Replica) announceIfChanged(ctx context.Context) {
	r.mu.Lock()
	dirty := r.presenceDirty
	r.mu.Unlock()
	if !dirty {
		return
	}
	actx, cancel := context.WithTimeout(ctx, r.serveFor)
	defer cancel()
	if err := r.announce(actx); err != nil {
		r.mu.Lock()
		r.presenceDirty = true
		r.mu.Unlock()
		r.log.Debug("cluster: presence not written", "replica", r.self, "err", err)
	}
}

// decodePresence reads a members value; a value that is not a presence
// (written by an older replica) gives an empty one.
func decodePresence(b []byte) presence {
	var p presence
	_ = json.Unmarshal(b, &p)
	return p
}
