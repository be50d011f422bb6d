package sim

import (
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// renderConfig renders a configuration as the dialect's running-config
// text. The text parses back (parseConfigText) into the same configuration.
// Secrets are printed as configured: redaction belongs to the MCP layer.
func renderConfig(c devConfig, dialectName string, changed time.Time, by string) string {
	d, err := dialectOf(dialectName)
	if err != nil {
		return ""
	}
	return d.Render(c.public(), changed, by)
}

// parseConfigText parses a whole configuration file of a dialect into a
// configuration, starting from base's non-configuration facts.
func parseConfigText(text string, dialectName string, base topology.Device) (devConfig, error) {
	d := base
	d.Interfaces, d.VLANs, d.VRFs, d.Routes, d.ACLs, d.Users, d.SNMPCommunities = nil, nil, nil, nil, nil, nil, nil
	d.OSPF, d.BGP = nil, nil
	c := devConfig{dev: d, hostname: base.Name}
	baseIf := map[string]topology.Interface{}
	for _, it := range base.Interfaces {
		baseIf[it.Name] = it
	}
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(l)
		if t == "Building configuration..." || t == "end" || t == "return" {
			continue
		}
		lines = append(lines, l)
	}
	if err := applyLines(&c, dialectName, lines); err != nil {
		return c, err
	}
	for i, it := range c.dev.Interfaces {
		b := baseIf[it.Name]
		c.dev.Interfaces[i].MAC, c.dev.Interfaces[i].IGPCost, c.dev.Interfaces[i].Passive = b.MAC, b.IGPCost, b.Passive
		if c.dev.Interfaces[i].Type == "" {
			c.dev.Interfaces[i].Type = b.Type
		}
	}
	return c, nil
}
