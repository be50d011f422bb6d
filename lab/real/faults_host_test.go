//go:build linux

package real

import (
	"context"
	"strings"
	"testing"
	"time"
)

// hostFaultRows are the host faults of faults_host.go, with their
// symptoms as the host's kernel shows them and the plan's addresses,
// routes and resolver back once cleared.
func hostFaultRows(ctx context.Context, t *testing.T, l *Lab, exec func(dev string, argv ...string) string) []faultRow {
	r3lan, ok := l.LinuxName("r3", "GigabitEthernet0/0/1")
	if !ok {
		t.Fatal("r3 has no interface GigabitEthernet0/0/1")
	}
	mac := func(dev, ifname string) string {
		return strings.TrimSpace(exec(dev, "cat", "/sys/class/net/"+ifname+"/address"))
	}
	r3MAC := mac("r3", r3lan)
	return []faultRow{
		{"host_incorrect_gateway h3 gateway=10.3.0.99", 5 * time.Second, 40 * time.Second,
			func() (bool, string) {
				s := exec("h3", "ip", "route", "show", "default")
				return strings.Contains(s, "10.3.0.99"), s
			},
			func() (bool, string) {
				s := exec("h3", "ip", "route", "show", "default")
				return strings.Contains(s, "10.3.0.1 "), s
			}},
		{"host_missing_ip h3", 5 * time.Second, 40 * time.Second,
			func() (bool, string) {
				s := exec("h3", "ip", "-4", "addr")
				return !strings.Contains(s, "10.3.0.10"), s
			},
			func() (bool, string) {
				s := exec("h3", "ip", "-4", "addr") + exec("h3", "ip", "route", "show", "default")
				return strings.Contains(s, "10.3.0.10/24") && strings.Contains(s, "default via"), s
			}},
		{"host_incorrect_netmask h3 prefix-length=30", 5 * time.Second, 40 * time.Second,
			func() (bool, string) {
				s := exec("h3", "ip", "-4", "addr")
				return strings.Contains(s, "10.3.0.10/30"), s
			},
			func() (bool, string) {
				s := exec("h3", "ip", "-4", "addr") + exec("h3", "ip", "route", "show", "default")
				return strings.Contains(s, "10.3.0.10/24") && strings.Contains(s, "default via 10.3.0.1"), s
			}},
		{"host_incorrect_dns h1 server=192.0.2.53", 5 * time.Second, 40 * time.Second,
			func() (bool, string) {
				s := exec("h1", "cat", "/etc/resolv.conf")
				return strings.Contains(s, "192.0.2.53"), s
			},
			func() (bool, string) {
				s := exec("h1", "cat", "/etc/resolv.conf")
				return !strings.Contains(s, "192.0.2.53"), s
			}},
		{"host_ip_conflict h3", 10 * time.Second, 15 * time.Second,
			func() (bool, string) {
				s := exec("h3", "ip", "-4", "addr")
				return strings.Contains(s, "10.3.0.1/24"), s
			},
			func() (bool, string) {
				s := exec("h3", "ip", "-4", "addr") + exec("h3", "ip", "route", "show", "default")
				return strings.Contains(s, "10.3.0.10/24") && strings.Contains(s, "default via 10.3.0.1"), s
			}},
		{"mac_address_conflict h3", 10 * time.Second, 15 * time.Second,
			func() (bool, string) { s := mac("h3", "eth0"); return s == r3MAC, s + " vs r3's " + r3MAC },
			func() (bool, string) { s := mac("h3", "eth0"); return s == "00:50:56:12:34:56", s }},
	}
}
