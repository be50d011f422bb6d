package policy_test

import (
	"fmt"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/policy"
)

// Example maps an mTLS subject to a role and authorises its actions.
func Example() {
	p, err := policy.Parse([]byte(`
identities:
  - {subject: alice, source: mtls, roles: [operator]}
approval:
  tools: {network.commit: always}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	alice := p.Resolve("alice", policy.SourceMTLS, nil)
	fmt.Println(p.Decide(alice, policy.Action{Kind: policy.CallTool, Tool: "network.yang.edit"}))
	fmt.Println(p.Decide(alice, policy.Action{Kind: policy.WritePath, Path: "/openconfig-vlan:vlans/vlan[vlan-id='100']"}))
	fmt.Println(p.Decide(alice, policy.Action{Kind: policy.CallTool, Tool: "network.file.push"}))
	gate := approval.New(p.Approval())
	fmt.Println(gate.Needs("network.yang.edit", policy.IsWriteTool("network.yang.edit")),
		gate.Needs("network.yang.get", policy.IsWriteTool("network.yang.get")))
	// Output:
	// <nil>
	// <nil>
	// Network.AccessDenied: calling tool network.file.push denied: the roles (operator) of mtls:alice do not include tool:network.file.push
	// true false
}
