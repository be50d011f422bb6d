package discover

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/d2d/tlv"
)

// LLDPCli discovers neighbours from a real lldpd through `lldpcli show
// neighbors details -f json0` (json0: every item an array, whatever its
// count). The D2D TLV is among the neighbour's unknown-tlvs (oui
// "00,00,5E", subtype "2", value "01,25,..."); the port is the port's
// description when its id is a MAC address (lldpd's default), else the id.
type LLDPCli struct {
	// Run returns lldpcli's JSON output (LLDPCliCommand's by default).
	Run func(ctx context.Context) ([]byte, error)
	// Skipped receives, when set, each neighbour left out and why.
	Skipped func(name, reason string)
}

// LLDPCliCommand returns a Run for lldpcli on the control socket socket
// ("" = lldpd's default), inside network namespace netns when not "".
func LLDPCliCommand(socket, netns string) func(ctx context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		args := []string{}
		if socket != "" {
			args = append(args, "-u", socket)
		}
		args = append(args, "show", "neighbors", "details", "-f", "json0")
		name := "lldpcli"
		if netns != "" {
			args = append([]string{"netns", "exec", netns, "lldpcli"}, args...)
			name = "ip"
		}
		out, err := exec.CommandContext(ctx, name, args...).Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				return nil, fmt.Errorf("lldpcli: %w: %s", err, strings.TrimSpace(string(ee.Stderr)))
			}
			return nil, fmt.Errorf("lldpcli: %w", err)
		}
		return out, nil
	}
}

type valued struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// Neighbors runs lldpcli and parses its output.
func (l LLDPCli) Neighbors(ctx context.Context) ([]Neighbor, error) {
	out, err := l.Run(ctx)
	if err != nil {
		return nil, err
	}
	var doc struct {
		LLDP []struct {
			Interface []struct {
				Name    string `json:"name"`
				Chassis []struct {
					Name   []valued `json:"name"`
					ID     []valued `json:"id"`
					MgmtIP []valued `json:"mgmt-ip"`
				} `json:"chassis"`
				Port []struct {
					ID    []valued `json:"id"`
					Descr []valued `json:"descr"`
				} `json:"port"`
				Unknown []struct {
					TLV []struct {
						OUI     string `json:"oui"`
						Subtype string `json:"subtype"`
						Value   string `json:"value"`
					} `json:"unknown-tlv"`
				} `json:"unknown-tlvs"`
			} `json:"interface"`
		} `json:"lldp"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return nil, fmt.Errorf("discover: lldpcli output (want -f json0): %w", err)
	}
	var ns []Neighbor
	for _, l0 := range doc.LLDP {
		for _, it := range l0.Interface {
			n := Neighbor{LocalInterface: it.Name}
			for _, c := range it.Chassis {
				if len(c.Name) > 0 {
					n.Name = c.Name[0].Value
				}
				for _, ip := range c.MgmtIP {
					if !strings.Contains(ip.Value, ":") { // an IPv4 management address first
						n.Address = ip.Value
						break
					}
				}
				if n.Address == "" && len(c.MgmtIP) > 0 {
					n.Address = c.MgmtIP[0].Value
				}
			}
			for _, p := range it.Port {
				if len(p.ID) > 0 && p.ID[0].Type != "mac" {
					n.PortID = p.ID[0].Value
				} else if len(p.Descr) > 0 {
					n.PortID = p.Descr[0].Value
				}
			}
			value, found := "", false
			for _, u := range it.Unknown {
				for _, t := range u.TLV {
					if normOUI(t.OUI) == normOUI(tlv.OUI) && t.Subtype == strconv.Itoa(tlv.Subtype) {
						value, found = t.Value, true
					}
				}
			}
			if !found {
				l.skip(n.Name, "no netmcp D2D TLV")
				continue
			}
			a, err := tlv.DecodeHex(strings.ReplaceAll(value, ",", ""))
			if err != nil {
				l.skip(n.Name, err.Error())
				continue
			}
			n.Advert = a
			ns = append(ns, n)
		}
	}
	sort.Slice(ns, func(i, j int) bool {
		if ns[i].Name != ns[j].Name {
			return ns[i].Name < ns[j].Name
		}
		return ns[i].LocalInterface < ns[j].LocalInterface
	})
	return ns, nil
}

func (l LLDPCli) skip(name, why string) {
	if l.Skipped != nil {
		l.Skipped(name, why)
	}
}
