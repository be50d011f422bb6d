package controller

import (
	"bytes"
	"fmt"
	"os"
	"slices"

	"gopkg.in/yaml.v3"
)

// Policy says which remediations may be applied without asking the
// operator (`netmcp ask --yes --policy FILE`):
//
//	auto-approve: true
//	root-causes: [icmp_acl_block, bgp_acl_block]  # empty: any cause
//	devices: [r2, r3]                              # empty: any device
//	max-changes: 2                                 # 0: no limit
type Policy struct {
	AutoApprove bool     `yaml:"auto-approve"`
	RootCauses  []string `yaml:"root-causes,omitempty"`
	Devices     []string `yaml:"devices,omitempty"`
	MaxChanges  int      `yaml:"max-changes,omitempty"`
}

// LoadPolicy reads a policy file (unknown keys are an error).
func LoadPolicy(path string) (*Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Policy
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	return &p, nil
}

// Allows tells whether the policy approves these changes without asking,
// and if not, why.
func (p *Policy) Allows(changes []Change) (bool, string) {
	switch {
	case p == nil || !p.AutoApprove:
		return false, "the policy does not allow automatic remediation (auto-approve is not true)"
	case p.MaxChanges > 0 && len(changes) > p.MaxChanges:
		return false, fmt.Sprintf("%d changes, the policy allows at most %d", len(changes), p.MaxChanges)
	}
	for _, c := range changes {
		if len(p.RootCauses) > 0 && !slices.Contains(p.RootCauses, c.Cause) {
			return false, fmt.Sprintf("the policy does not allow fixing %s automatically", c.Cause)
		}
		if len(p.Devices) > 0 && !slices.Contains(p.Devices, c.Device) {
			return false, fmt.Sprintf("the policy does not allow changing %s automatically", c.Device)
		}
	}
	return true, ""
}
