package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// ScopeDevice is the kind of a device scope (device:NAME, device:PREFIX*,
// device:*, device:tag=TAG, device:site=SITE, device:role=ROLE): it limits
// the other scopes of its role to the devices it matches, for the
// controller (`netmcp controller serve`), whose hosts reach many devices.
// A role without a device scope reaches every device; a device's own
// server (`netmcp serve`) ignores device scopes.
const ScopeDevice = "device"

// Device attributes a device scope matches: the device's name and its
// inventory's site, role and tags.
type Device struct {
	Name string
	Site string
	Role string
	Tags []string
}

// parseDevicePattern checks the part of a device scope after "device:".
func parseDevicePattern(s, rest string) error {
	if attr, val, ok := strings.Cut(rest, "="); ok {
		if attr != "tag" && attr != "site" && attr != "role" {
			return fmt.Errorf("policy: scope %q: unknown device attribute %q (want tag=, site= or role=)", s, attr)
		}
		if val == "" || strings.Contains(val, "*") {
			return fmt.Errorf("policy: scope %q: %s= wants one exact value", s, attr)
		}
		return nil
	}
	if i := strings.IndexByte(rest, '*'); i >= 0 && i != len(rest)-1 {
		return fmt.Errorf("policy: scope %q: '*' may only end the pattern", s)
	}
	return nil
}

// matchDevice reports whether a device scope's pattern matches d.
func matchDevice(pattern string, d Device) bool {
	attr, val, ok := strings.Cut(pattern, "=")
	if !ok {
		return matchPattern(pattern, d.Name)
	}
	switch attr {
	case "tag":
		return slices.Contains(d.Tags, val)
	case "site":
		return d.Site == val
	case "role":
		return d.Role == val
	}
	return false
}

// reaches reports whether scopes (one role's, or a token's) reach d: they
// hold no device scope, or one that matches d.
func reaches(scopes []Scope, d Device) bool {
	limited := false
	for _, s := range scopes {
		if s.Kind != ScopeDevice {
			continue
		}
		if matchDevice(s.Pattern, d) {
			return true
		}
		limited = true
	}
	return !limited
}

// Reaches reports whether any role of id reaches device d (and, for a
// token, whether its scopes do): what the controller's list_devices shows.
func (p *Policy) Reaches(id Identity, d Device) bool {
	if id.Scopes != nil && !reaches(tokenScopes(id.Scopes), d) {
		return false
	}
	for _, r := range id.Roles {
		if reaches(p.roles[r], d) {
			return true
		}
	}
	return false
}

// DecideOn authorises action a on device d for id: one role of id must
// both grant a and reach d (a role limited to site a does not lend its
// write tools to a device of site b), and a token's scopes must grant a
// and reach d too. A refusal is a -32083 Network.AccessDenied error whose
// detail names the action, the device, the identity and the missing scope.
func (p *Policy) DecideOn(id Identity, d Device, a Action) error {
	a.Device = d.Name
	if err := p.Decide(id, a); err != nil {
		return err
	}
	var path yang.Path
	if a.Kind == ReadPath || a.Kind == WritePath {
		path, _ = yang.ParsePath(a.Path) // Decide parsed it
	}
	if a.Kind == CallTool {
		a.Tool = netproto.CanonicalName(a.Tool)
	}
	if id.Scopes != nil && !reaches(tokenScopes(id.Scopes), d) {
		return deny(a, fmt.Sprintf("the token scopes of %s do not reach device %s (%s)", id, d.Name, d.Attributes()))
	}
	var limits []string
	for _, r := range id.Roles {
		sc := p.roles[r]
		if p.check(sc, a, path, r) != nil {
			continue
		}
		if reaches(sc, d) {
			return nil
		}
		var ds []string
		for _, s := range sc {
			if s.Kind == ScopeDevice {
				ds = append(ds, s.String())
			}
		}
		limits = append(limits, fmt.Sprintf("role %s is limited to %s", r, strings.Join(ds, " ")))
	}
	return deny(a, fmt.Sprintf("no role of %s that allows it reaches device %s (%s): %s", id, d.Name, d.Attributes(), strings.Join(limits, "; ")))
}

// Attributes lists the device's site, role and tags as a device scope
// names them ("site=a role=router tag=edge").
func (d Device) Attributes() string {
	parts := []string{}
	if d.Site != "" {
		parts = append(parts, "site="+d.Site)
	}
	if d.Role != "" {
		parts = append(parts, "role="+d.Role)
	}
	for _, t := range d.Tags {
		parts = append(parts, "tag="+t)
	}
	if len(parts) == 0 {
		return "no site, role or tag"
	}
	return strings.Join(parts, " ")
}
