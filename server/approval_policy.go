package server

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/netmcp/netmcp/approval"
)

// ApprovalPolicyFile is the part of the policy file (`netmcp serve
// --policy FILE`, the YAML format of package policy) that the approval gate
// reads, plus the approvers' keys:
//
//	approval:
//	  default: writes            # always | writes | never
//	  tools:
//	    network.commit: always
//	    ping: always
//	trustedKeys:
//	  alice: <base64 Ed25519 public key>
//
// The other members of a policy file (roles, identities, defaultRoles,
// secretPaths, jwt, rateLimit, maxConcurrentPerSession) belong to package
// policy and are accepted but not read here. Any other member is an error,
// so a typo cannot silently weaken the policy.
type ApprovalPolicyFile struct {
	Approval struct {
		Default string            `yaml:"default"`
		Tools   map[string]string `yaml:"tools"`
	} `yaml:"approval"`
	TrustedKeys map[string]string `yaml:"trustedKeys"`

	// Members of package policy's file, not read by the approval gate.
	Roles                   yaml.Node `yaml:"roles"`
	Identities              yaml.Node `yaml:"identities"`
	DefaultRoles            yaml.Node `yaml:"defaultRoles"`
	SecretPaths             yaml.Node `yaml:"secretPaths"`
	JWT                     yaml.Node `yaml:"jwt"`
	RateLimit               yaml.Node `yaml:"rateLimit"`
	MaxConcurrentPerSession yaml.Node `yaml:"maxConcurrentPerSession"`
}

// LoadApprovalPolicy reads a policy file into approval.Options.
func LoadApprovalPolicy(path string) (approval.Options, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return approval.Options{}, fmt.Errorf("approval policy: %w", err)
	}
	opts, err := ParseApprovalPolicy(b)
	if err != nil {
		return approval.Options{}, fmt.Errorf("approval policy %s: %w", path, err)
	}
	return opts, nil
}

// ParseApprovalPolicy parses the YAML of an ApprovalPolicyFile into
// approval.Options. An empty document gives the defaults (writes need
// approval, no trusted keys).
func ParseApprovalPolicy(data []byte) (approval.Options, error) {
	var f ApprovalPolicyFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return approval.Options{}, err
	}
	var opts approval.Options
	if f.Approval.Default != "" {
		m, err := approval.ParseMode(f.Approval.Default)
		if err != nil {
			return opts, fmt.Errorf("approval.default: %w", err)
		}
		opts.Default = m
	}
	if len(f.Approval.Tools) > 0 {
		opts.Modes = map[string]approval.Mode{}
		for _, tool := range sortedKeys(f.Approval.Tools) {
			m, err := approval.ParseMode(f.Approval.Tools[tool])
			if err != nil {
				return opts, fmt.Errorf("approval.tools.%s: %w", tool, err)
			}
			opts.Modes[tool] = m
		}
	}
	if len(f.TrustedKeys) > 0 {
		opts.TrustedKeys = map[string]ed25519.PublicKey{}
		for _, id := range sortedKeys(f.TrustedKeys) {
			k, err := ParsePublicKey(f.TrustedKeys[id])
			if err != nil {
				return opts, fmt.Errorf("trustedKeys.%s: %w", id, err)
			}
			opts.TrustedKeys[id] = k
		}
	}
	return opts, nil
}

// ParsePublicKey reads a base64 (standard or URL alphabet) Ed25519 public key.
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

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
