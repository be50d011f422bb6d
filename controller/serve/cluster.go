package serve

import (
	"context"
	"encoding/json"
	"time"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/netproto"
)

// Cluster is what a controller replica shares with the other replicas of
// a cluster (package controller/cluster): which devices it holds the
// sessions of, and the signed consents used on any replica. The calls on
// the devices it does not hold go to their owner through the fleet
// (client.Options.Remote).
type Cluster interface {
	// Serves reports whether this replica holds device's session now.
	Serves(device string) bool
	// UseNonce records a consent's nonce as used across the cluster until
	// forget, or refuses it as used before (or when it cannot be recorded).
	UseNonce(ctx context.Context, nonce string, forget time.Time) error
}

// consentMaxAge is how long after its timestamp a consent is remembered
// at most: the devices' default consent age (approval.Options).
const consentMaxAge = 5 * time.Minute

// SetCluster makes the server a replica of a cluster: a signed consent in
// call_device_tool's arguments is recorded cluster-wide before the call
// goes to the device, so a consent used through one replica is refused
// by every other; ask examines the devices this replica holds.
func (s *Server) SetCluster(c Cluster) { s.cluster = c }

// useConsent records the consent among args, if any, as used across the
// cluster; a consent used before, or one whose use cannot be recorded, is
// refused.
func (s *Server) useConsent(ctx context.Context, args map[string]any) error {
	if s.cluster == nil {
		return nil
	}
	v, ok := args[approval.ArgConsent]
	if !ok || v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return netproto.Errorf(netproto.CodeAccessDenied, "approval: consent unreadable: %v", err)
	}
	nonce, forget, err := approval.ConsentNonce(raw, consentMaxAge)
	if err != nil {
		return err
	}
	if err := s.cluster.UseNonce(ctx, nonce, forget); err != nil {
		return netproto.Errorf(netproto.CodeAccessDenied, "approval: consent nonce %q refused by the cluster: %v", nonce, err)
	}
	return nil
}
