//go:build linux

package real

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pingLoss matches ping's summary ("20 packets transmitted, 9 received").
var pingLoss = regexp.MustCompile(`(\d+) packets transmitted, (\d+) received`)

// linkFaultRows are the link faults of faults_link.go beyond
// TestRealLab's (link_down, mtu_mismatch) and TestRealLabLatency's, with
// their symptoms as the kernel shows them.
func linkFaultRows(ctx context.Context, t *testing.T, l *Lab, exec func(dev string, argv ...string) string) []faultRow {
	linux := func(dev, iface string) string {
		n, ok := l.LinuxName(dev, iface)
		if !ok {
			t.Fatalf("%s has no interface %s", dev, iface)
		}
		return n
	}
	r2r3, r3r2 := linux("r2", "GigabitEthernet0/0/0/1"), linux("r3", "GigabitEthernet0/0/0")
	// received counts the replies of 20 quick pings from r2 to r3 across
	// their link.
	received := func() (int, string) {
		s := exec("r2", "ping", "-n", "-q", "-c", "20", "-i", "0.02", "-W", "1", "10.0.23.2")
		var sent, got int
		if m := pingLoss.FindStringSubmatch(s); m != nil {
			fmt.Sscan(m[1], &sent)
			fmt.Sscan(m[2], &got)
		}
		return got, s
	}
	// macs is each end's MAC address, which detaching and clearing keep.
	macs := func() string {
		return strings.Join(strings.Fields(exec("r2", "cat", "/sys/class/net/"+r2r3+"/address")+exec("r3", "cat", "/sys/class/net/"+r3r2+"/address")), " ")
	}
	before := macs()
	return []faultRow{
		// The cable of r2's end is pulled: r2's end administratively up
		// with no carrier, r3's end up at both levels but hearing nothing,
		// so the adjacency goes and no ping crosses.
		{"link_detach r2:GigabitEthernet0/0/0/1", 15 * time.Second, 30 * time.Second,
			func() (bool, string) {
				a, b := exec("r2", "ip", "link", "show", r2r3), exec("r3", "ip", "link", "show", r3r2)
				n, _ := l.OSPFFull(ctx, "r3")
				s := a + b + fmt.Sprintf("r3 full adjacencies: %d", n)
				return strings.Contains(a, "NO-CARRIER") && strings.Contains(a, ",UP") && !strings.Contains(b, "NO-CARRIER") &&
					strings.Contains(b, "state UP") && n == 0 && macs() == before, s
			},
			func() (bool, string) {
				n, s := received()
				full, _ := l.OSPFFull(ctx, "r3")
				s += fmt.Sprintf("r3 full adjacencies: %d; MACs %s, before %s", full, macs(), before)
				l.mu.Lock()
				left := len(l.detached)
				l.mu.Unlock()
				return n == 20 && full == 1 && macs() == before && left == 0 &&
					!strings.Contains(exec("r2", "ip", "link", "show", r2r3), "NO-CARRIER"), s
			}},
		{"link_flap r2:GigabitEthernet0/0/0/1 period=4 down=2", 10 * time.Second, 40 * time.Second,
			func() (bool, string) {
				s := exec("r3", "ip", "link", "show", "gi0-0-0")
				return strings.Contains(s, "NO-CARRIER") || strings.Contains(s, "state DOWN"), s
			},
			func() (bool, string) {
				s := exec("r3", "ip", "link", "show", "gi0-0-0")
				return strings.Contains(s, "state UP"), s
			}},
		// Each ping crosses two lossy ingresses (both ends): most are lost.
		{"link_high_packet_corruption r2:GigabitEthernet0/0/0/1 percent=50", 10 * time.Second, 15 * time.Second,
			func() (bool, string) { n, s := received(); return n < 20, s },
			func() (bool, string) { n, s := received(); return n == 20, s }},
		// r2's end runs at MTU 1400 and does not fragment: a 1450-byte
		// ping without DF leaves in no fragments (the rule drops and
		// counts it), one with DF is refused as too long, a 1300-byte
		// one crosses. FRR resets the interface's OSPF on the MTU change
		// (the adjacency is not Full meanwhile); clearing brings it back.
		{"link_fragmentation_disabled r2:GigabitEthernet0/0/0/1 mtu=1400", 10 * time.Second, 30 * time.Second,
			func() (bool, string) {
				link := exec("r2", "ip", "link", "show", r2r3)
				big := exec("r2", "ping", "-n", "-q", "-c", "2", "-i", "0.2", "-W", "1", "-M", "dont", "-s", "1450", "10.0.23.2")
				df := exec("r2", "ping", "-n", "-c", "1", "-W", "1", "-M", "do", "-s", "1450", "10.0.23.2")
				small := exec("r2", "ping", "-n", "-q", "-c", "2", "-i", "0.2", "-W", "1", "-M", "do", "-s", "1300", "10.0.23.2")
				rules := exec("r2", "nft", "list", "table", "inet", nftTable("link_fragmentation_disabled", r2r3))
				full, _ := l.OSPFFull(ctx, "r3")
				s := strings.Join([]string{link, big, df, small, rules, fmt.Sprintf("r3 full adjacencies: %d", full)}, "\n")
				return strings.Contains(link, "mtu 1400 ") && replies(big) == 0 && strings.Contains(df, "mtu=1400") &&
					replies(small) == 2 && ruleDrops(rules) > 0, s
			},
			func() (bool, string) {
				link := exec("r2", "ip", "link", "show", r2r3)
				big := exec("r2", "ping", "-n", "-q", "-c", "2", "-i", "0.2", "-W", "1", "-M", "dont", "-s", "1450", "10.0.23.2")
				rules := exec("r2", "nft", "list", "tables")
				full, _ := l.OSPFFull(ctx, "r3")
				return strings.Contains(link, "mtu 1500 ") && replies(big) == 2 && !strings.Contains(rules, "link_fragmentation_disabled") && full == 1,
					strings.Join([]string{link, big, rules, fmt.Sprintf("r3 full adjacencies: %d", full)}, "\n")
			}},
		// The lab's background load (about 100 kbit/s each way) overflows
		// both 64 kbit/s queues: each shaper drops.
		{"link_bandwidth_throttling r2:GigabitEthernet0/0/0/1 rate=64", 10 * time.Second, 15 * time.Second,
			func() (bool, string) {
				a, b := exec("r2", "tc", "-s", "qdisc", "show", "dev", r2r3), exec("r3", "tc", "-s", "qdisc", "show", "dev", r3r2)
				s := a + b
				return strings.Count(s, "tbf") == 2 && strings.Contains(s, "rate 64Kbit") && qdiscDrops(a) > 0 && qdiscDrops(b) > 0, s
			},
			func() (bool, string) {
				s := exec("r2", "tc", "qdisc", "show", "dev", r2r3) + exec("r3", "tc", "qdisc", "show", "dev", r3r2)
				l.mu.Lock()
				loads := len(l.loads)
				l.mu.Unlock()
				return !strings.Contains(s, "tbf") && loads == 0, fmt.Sprintf("%s; %d background loads running", s, loads)
			}},
	}
}

// replies reads how many replies ping's summary counts (-1 when there is
// no summary).
func replies(s string) int {
	m := pingLoss.FindStringSubmatch(s)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[2])
	return n
}

// ruleDrops reads the packets an nftables counter counted (-1 when there
// is none).
func ruleDrops(s string) int {
	m := regexp.MustCompile(`counter packets (\d+)`).FindStringSubmatch(s)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// qdiscDrops reads the dropped count of `tc -s qdisc show` output (-1
// when there is none).
func qdiscDrops(s string) int {
	m := regexp.MustCompile(`dropped (\d+)`).FindStringSubmatch(s)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
