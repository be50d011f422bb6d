//go:build linux

package real

import (
	"context"
	"strings"
	"testing"
	"time"
)

// dnsFaultRows are the DNS faults of faults_dns.go on h3 (the DNS host),
// with their symptoms as h3's sockets or a lookup shows them, and the
// service answering right again once cleared.
func dnsFaultRows(ctx context.Context, t *testing.T, l *Lab, exec func(dev string, argv ...string) string) []faultRow {
	digR1 := func() string {
		return exec("r1", "dig", "+short", "+time=1", "+tries=1", "@10.3.0.10", "r1.lab.example")
	}
	return []faultRow{
		{"dns_service_down h3", 10 * time.Second, 40 * time.Second,
			func() (bool, string) { s := exec("h3", "ss", "-lnu"); return !strings.Contains(s, ":53 "), s },
			func() (bool, string) { s := exec("h3", "ss", "-lnu"); return strings.Contains(s, ":53 "), s }},
		{"dns_port_blocked h3", 5 * time.Second, 40 * time.Second,
			func() (bool, string) {
				s := exec("h1", "dig", "+time=1", "+tries=1", "@10.3.0.10", "lab.example", "SOA")
				return strings.Contains(s, "timed out") || strings.Contains(s, "no servers"), s
			},
			func() (bool, string) {
				s := exec("h1", "dig", "+time=1", "+tries=1", "@10.3.0.10", "lab.example", "SOA")
				return strings.Contains(s, "status: NOERROR"), s
			}},
		{"dns_record_error h3", 10 * time.Second, 15 * time.Second,
			func() (bool, string) {
				s := digR1()
				return strings.TrimSpace(s) != "10.255.0.1" && !strings.Contains(s, "error"), s
			},
			func() (bool, string) { s := digR1(); return strings.TrimSpace(s) == "10.255.0.1", s }},
	}
}
