package policy

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"maps"
	"strings"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/netproto"
)

// ApprovalConfig is the approval section of a policy file. Its modes are
// those of the approval gate (package approval): always, writes, never.
type ApprovalConfig struct {
	// Default applies to tools not listed (default: writes).
	Default approval.Mode `yaml:"default"`
	// Tools set the mode of single tools (dotted or compat names).
	Tools map[string]approval.Mode `yaml:"tools"`
	// FourEyes asks for a second person: an approval given by the
	// identity that requested the change (the same subject, whatever
	// its source) is refused. The controller enforces it: its web
	// console refuses the requester's own approval, and the approval
	// questions of a host's writes go to the console's queue rather than
	// back to the requesting host.
	FourEyes bool `yaml:"fourEyes"`
}

// newApprovalOptions checks the approval section and the approvers' keys
// of a policy file and builds the approval gate's options. Compat tool
// names (network_commit) are stored in their dotted form, the form the
// gate is asked with.
func newApprovalOptions(c ApprovalConfig, keys map[string]string) (approval.Options, error) {
	opts := approval.Options{Default: approval.Writes, Modes: map[string]approval.Mode{}}
	if c.Default != "" {
		m, err := approval.ParseMode(string(c.Default))
		if err != nil {
			return opts, fmt.Errorf("policy: approval.default %q (want always, writes or never)", c.Default)
		}
		opts.Default = m
	}
	for tool, m := range c.Tools {
		if _, err := approval.ParseMode(string(m)); err != nil {
			return opts, fmt.Errorf("policy: approval.tools.%s: %q (want always, writes or never)", tool, m)
		}
		opts.Modes[netproto.CanonicalName(tool)] = m
	}
	if len(keys) > 0 {
		opts.TrustedKeys = map[string]ed25519.PublicKey{}
		for id, s := range keys {
			k, err := ParsePublicKey(s)
			if err != nil {
				return opts, fmt.Errorf("policy: trustedKeys.%s: %w", id, err)
			}
			opts.TrustedKeys[id] = k
		}
	}
	return opts, nil
}

// Approval returns the approval gate's options from the policy file:
// modes per tool and the trusted approver keys (see approval.New).
func (p *Policy) Approval() approval.Options {
	opts := p.approval
	opts.Modes = maps.Clone(opts.Modes)
	opts.TrustedKeys = maps.Clone(opts.TrustedKeys)
	return opts
}

// FourEyes tells whether a change must be approved by another identity
// than the one that requested it (approval.fourEyes).
func (p *Policy) FourEyes() bool { return p.file.Approval.FourEyes }

// ParsePublicKey reads a base64 (standard or URL alphabet, padded or not)
// Ed25519 public key, as trustedKeys holds them.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			if len(b) != ed25519.PublicKeySize {
				return nil, fmt.Errorf("an Ed25519 public key has %d bytes, not %d", ed25519.PublicKeySize, len(b))
			}
			return ed25519.PublicKey(b), nil
		}
	}
	return nil, fmt.Errorf("not base64")
}
