package server_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"testing"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/policy"
)

// parseApprovalPolicy reads the approval gate's options from a policy file,
// as `netmcp serve --policy FILE` does.
func parseApprovalPolicy(file []byte) (approval.Options, error) {
	p, err := policy.Parse(file)
	if err != nil {
		return approval.Options{}, err
	}
	return p.Approval(), nil
}

// TestOnePolicyFileServesBothLayers checks that one policy file carries the
// access control (roles) and the approval gate's modes and approver keys,
// compat tool names included.
func TestOnePolicyFileServesBothLayers(t *testing.T) {
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	file := []byte(`
roles:
  noc: ["tool:ping", "yang:/ietf-interfaces:interfaces"]
approval:
  default: writes
  tools:
    ping: always
    network_rollback: never
trustedKeys:
  alice: ` + base64.StdEncoding.EncodeToString(pub) + `
`)
	opts, err := parseApprovalPolicy(file)
	if err != nil {
		t.Fatalf("policy.Parse: %v", err)
	}
	if !opts.TrustedKeys["alice"].Equal(pub) {
		t.Fatalf("trusted key alice not read: %v", opts.TrustedKeys)
	}
	g := approval.New(opts)
	if !g.Needs("ping", false) || g.Needs("network.rollback", true) || !g.Needs("network.commit", true) {
		t.Fatalf("modes not applied: ping=%s rollback=%s commit=%s", g.Mode("ping"), g.Mode("network.rollback"), g.Mode("network.commit"))
	}
}
