package server_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"testing"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
)

// TestOnePolicyFileServesBothLayers checks that `netmcp serve --policy FILE`
// can hand the same file to the access-control layer (package policy, which
// rejects unknown members) and to the approval gate.
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
    network.rollback: never
trustedKeys:
  alice: ` + base64.StdEncoding.EncodeToString(pub) + `
`)
	if _, err := policy.Parse(file); err != nil {
		t.Fatalf("policy.Parse: %v", err)
	}
	opts, err := server.ParseApprovalPolicy(file)
	if err != nil {
		t.Fatalf("ParseApprovalPolicy: %v", err)
	}
	if !opts.TrustedKeys["alice"].Equal(pub) {
		t.Fatalf("trusted key alice not read: %v", opts.TrustedKeys)
	}
	g := approval.New(opts)
	if !g.Needs("ping", false) || g.Needs("network.rollback", true) || !g.Needs("network.commit", true) {
		t.Fatalf("modes not applied: ping=%s rollback=%s commit=%s", g.Mode("ping"), g.Mode("network.rollback"), g.Mode("network.commit"))
	}
}
