package agent

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// TestDraftScenario reproduces the draft's section 5 scenario on the
// simulated lab with each fault injected by name at run time: asked on
// the head and on the tail, the report localizes the fault to the right
// device, direction and cause, a capture rule agrees, every signature
// verifies, and the captures' pcap files are in the signed evidence.
func TestDraftScenario(t *testing.T) {
	for _, tc := range []struct {
		name, fault         string
		device, dir, cause  string
		captureRule, capDev string
	}{
		{"unidirectional loss", "link_high_packet_corruption r2:GigabitEthernet0/0/0/1 percent=30 direction=out",
			"r2", "r2->r3", "link-corruption", "capture-gap", "r2"},
		{"one-way egress ACL", "icmp_acl_block r2:GigabitEthernet0/0/0/1 direction=out",
			"r2", "r2->r3", "egress-filter", "capture-silent", "r2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := topology.ParseFault(tc.fault)
			if err != nil {
				t.Fatal(err)
			}
			d := newDomain(t, domainOpts{})
			if _, err := d.lab.Inject(f); err != nil {
				t.Fatal(err)
			}
			for _, from := range []string{"r1", "r3"} {
				r := askVerified(t, d, from)
				h := r.Hypothesis
				if h == nil || h.Device != tc.device || h.Direction != tc.dir || h.Cause != tc.cause {
					t.Fatalf("asked on %s: hypothesis %+v; findings %s", from, h, findingsJSON(r))
				}
				capOK := false
				for _, f := range r.Findings {
					if f.Direction != tc.dir {
						t.Errorf("asked on %s: a clean direction blamed: %+v", from, f)
					}
					if f.Rule == tc.captureRule && f.Device == tc.capDev {
						capOK = true
					}
				}
				if !capOK {
					t.Errorf("asked on %s: no %s finding on %s; findings %s", from, tc.captureRule, tc.capDev, findingsJSON(r))
				}
				pcaps := 0
				for _, e := range r.Evidence {
					if e.Tool != netproto.ToolCapture {
						continue
					}
					var body struct {
						PCAP string `json:"pcap"`
					}
					if err := json.Unmarshal(e.Body, &body); err != nil {
						t.Fatal(err)
					}
					b, err := base64.StdEncoding.DecodeString(body.PCAP)
					if err != nil || len(b) < 24 || binary.LittleEndian.Uint32(b) != 0xa1b2c3d4 {
						t.Fatalf("capture of %s: no libpcap file in the evidence (%d bytes, %v)", e.Signer, len(b), err)
					}
					pcaps++
				}
				if pcaps != 4 {
					t.Errorf("asked on %s: %d captures in the evidence, want one per path interface (4)", from, pcaps)
				}
				t.Logf("asked on %s: %s", from, h.Statement)
			}
		})
	}
}
