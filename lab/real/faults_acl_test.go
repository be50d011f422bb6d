//go:build linux

package real

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// dropped matches an nftables rule that has dropped packets.
var dropped = regexp.MustCompile(`counter packets [1-9]`)

// aclFaultRows are the ACL faults of faults_acl.go beyond TestRealLab's
// bgp_acl_block: each rule shows (and drops), then goes.
func aclFaultRows(ctx context.Context, t *testing.T, l *Lab, exec func(dev string, argv ...string) string) []faultRow {
	return []faultRow{
		// OSPF's dead interval (40 s after convergence) is too long to
		// wait here: the rule's counter shows the dropped hellos.
		{"ospf_acl_block r3:GigabitEthernet0/0/0", 25 * time.Second, 40 * time.Second,
			func() (bool, string) {
				s := exec("r3", "nft", "list", "table", "inet", "netmcp_ospf_acl_block_gi0_0_0")
				return dropped.MatchString(s), s
			},
			func() (bool, string) {
				s := exec("r3", "nft", "list", "ruleset")
				return !strings.Contains(s, "netmcp_ospf"), s
			}},
		{"http_acl_block r3:GigabitEthernet0/0/1 port=8080", 5 * time.Second, 40 * time.Second,
			func() (bool, string) {
				s := exec("r3", "nft", "list", "ruleset")
				return strings.Contains(s, "tcp dport 8080 counter packets 0 bytes 0 drop"), s
			},
			func() (bool, string) {
				s := exec("r3", "nft", "list", "ruleset")
				return !strings.Contains(s, "8080"), s
			}},
	}
}
