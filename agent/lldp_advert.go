package agent

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/netmcp/netmcp/d2d/tlv"
	"github.com/netmcp/netmcp/device"
)

// D2DTLV is the agent's advertisement as the device's LLDP agent sends
// it: OUI 00:00:5e, subtype 2, the encoded information string.
func (a *Agent) D2DTLV() device.LLDPTLV {
	return device.LLDPTLV{OUI: d2dOUI(), Subtype: tlv.Subtype, Value: a.Advert().Encode()}
}

func d2dOUI() [3]byte {
	var oui [3]byte
	b, _ := hex.DecodeString(strings.ReplaceAll(tlv.OUI, ":", ""))
	copy(oui[:], b)
	return oui
}

// AdvertiseLLDP makes the device's LLDP agent send this agent's TLV on
// every port, next to keep (the device's other organisationally specific
// TLVs, which SetLLDPCustomTLVs would otherwise replace). A D2D TLV in
// keep (an earlier agent's) is dropped: a device advertises one. The
// neighbours learn it at their next LLDPDU (at once on the simulator).
func (a *Agent) AdvertiseLLDP(ctx context.Context, la device.LLDPAgent, keep []device.LLDPTLV) error {
	var tlvs []device.LLDPTLV
	for _, t := range keep {
		if t.OUI == d2dOUI() && t.Subtype == tlv.Subtype {
			continue
		}
		tlvs = append(tlvs, t)
	}
	tlvs = append(tlvs, a.D2DTLV())
	if err := la.SetLLDPCustomTLVs(ctx, tlvs); err != nil {
		return fmt.Errorf("agent: advertising the D2D TLV over LLDP: %w", err)
	}
	return nil
}
