package agent

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/netmcp/netmcp/d2d/sign"
)

// ExtensionKey is the member of capabilities.experimental (client and
// server) carrying a D2D offer at initialize.
const ExtensionKey = "ietf-mcp-d2d"

// Offer is what each side states at initialize.
type Offer struct {
	// Capabilities are the capabilities this side lets the other call.
	Capabilities []string `json:"capabilities"`
	// Binding ties the side's Ed25519 result-signing key to its device
	// certificate (absent for an operator).
	Binding *sign.Binding `json:"binding,omitempty"`
}

// asExperimental returns the offer as a capabilities.experimental map.
func (o Offer) asExperimental() map[string]any {
	var m map[string]any
	b, _ := json.Marshal(o)
	_ = json.Unmarshal(b, &m)
	return map[string]any{ExtensionKey: m}
}

// offerFrom reads an offer from a capabilities.experimental map.
func offerFrom(exp map[string]any) (Offer, error) {
	v, ok := exp[ExtensionKey]
	if !ok {
		return Offer{}, errors.New("no " + ExtensionKey + " member in capabilities.experimental: the peer is not a D2D agent")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Offer{}, err
	}
	var o Offer
	if err := json.Unmarshal(b, &o); err != nil {
		return Offer{}, fmt.Errorf("malformed %s offer: %w", ExtensionKey, err)
	}
	return o, nil
}
