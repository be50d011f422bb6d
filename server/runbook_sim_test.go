package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/server"
)

// TestPingFailRunbookOnSimulatedLab runs the ping-failure runbook on r1 of
// the default simulated lab with a fault injected in the model, and checks
// that the diagnosis names that fault: the runbook reads the device, it does
// not guess.
func TestPingFailRunbookOnSimulatedLab(t *testing.T) {
	tests := []struct {
		name  string
		fault *topology.Fault
		src   string
		dst   string
		vrf   string
		cause []string // all must appear in the root cause
	}{
		{"healthy path to h3", nil, "10.255.0.1", "10.3.0.10", "", []string{"no fault found"}},
		{"r1-r2 link down", &topology.Fault{Kind: topology.FaultLinkDown, Link: "r1:GigabitEthernet0/0/0"},
			"10.255.0.1", "10.3.0.10", "", []string{"interface down", "GigabitEthernet0/0/0", "DOWN"}},
		{"section 8.3 walk-through", nil, "192.168.1.1", "10.0.0.5", "mgmt", []string{"no fault found"}},
		{"no route in the VRF", nil, "192.168.1.1", "10.3.0.10", "mgmt", []string{"missing route", "VRF mgmt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lab := newLab(t)
			if tt.fault != nil {
				if err := lab.InjectFault(*tt.fault); err != nil {
					t.Fatal(err)
				}
			}
			cs, _ := connect(t, labDevice(t, lab, "r1"), server.Options{}, nil)
			cause := runbookCause(t, cs, map[string]string{"src": tt.src, "dst": tt.dst, "vrf": tt.vrf})
			for _, want := range tt.cause {
				if !strings.Contains(cause, want) {
					t.Fatalf("root cause %q does not contain %q", cause, want)
				}
			}
		})
	}
}

// runbookCause follows the runbook, letting the server read the device for
// each step, until "Diagnosis complete", and returns the root cause.
func runbookCause(t *testing.T, cs *mcp.ClientSession, args map[string]string) string {
	t.Helper()
	if args["vrf"] == "" {
		delete(args, "vrf")
	}
	for step := 0; step < 10; step++ {
		res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "network.troubleshoot.ping-fail", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if done, _ := res.Meta["diagnosisComplete"].(bool); done {
			return res.Meta["rootCause"].(string)
		}
		args = map[string]string{"previousContextId": res.Meta["contextId"].(string)}
	}
	t.Fatal("diagnosis never completes")
	return ""
}
