// Package discover finds a collaboration agent's neighbours (the
// troubleshooting draft's section 5, step 1): the devices next to it that
// advertise a netmcp D2D TLV (package tlv), with the interface they were
// heard on, their port, capability digest and certificate thumbprint.
package discover

import (
	"context"

	"github.com/netmcp/netmcp/d2d/tlv"
)

// Neighbor is one discovered neighbour.
type Neighbor struct {
	// Name is the neighbour's system name (its identity: the common name
	// of its device certificate).
	Name string `json:"name"`
	// LocalInterface is the interface of this device it was heard on.
	LocalInterface string `json:"localInterface,omitempty"`
	// PortID is the neighbour's interface facing this device.
	PortID string `json:"portId,omitempty"`
	// Address is the neighbour's management address (the host part of its
	// MCP endpoint).
	Address string `json:"address,omitempty"`
	// Advert is its D2D TLV.
	Advert tlv.Advert `json:"-"`
}

// Discoverer lists the neighbours that advertise the D2D TLV.
type Discoverer interface {
	Neighbors(ctx context.Context) ([]Neighbor, error)
}

// Static is a fixed neighbour list (tests, or a configured domain).
type Static []Neighbor

// Neighbors returns the list.
func (s Static) Neighbors(context.Context) ([]Neighbor, error) {
	return append([]Neighbor(nil), s...), nil
}
