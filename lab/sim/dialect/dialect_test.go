package dialect_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/vrp"
	"github.com/netmcp/netmcp/lab/sim/xr"
)

// dialects are the implementations under test, with a configuration in
// each one's words that sets a little of everything the renderer prints.
var dialects = []struct {
	d     dialect.Dialect
	name  string
	lines []string
}{
	{vrp.Dialect, "huawei-vrp", []string{
		"sysname edge", "vlan batch 10 20", "ip vpn-instance mgmt", "route-distinguisher 65001:1", "quit",
		"acl name EDGE", "rule 5 deny tcp destination-port eq 22", "quit",
		"interface GigabitEthernet0/0/0", "description uplink", "ip address 10.0.12.1 30", "ospf enable 1 area 0", "quit",
		"interface LoopBack0", "ip address 10.255.0.1 32", "ospf enable area 0", "quit",
		"ip route-static 10.50.0.0 16 10.0.12.2", "bgp 65001", "peer 10.0.12.2 as-number 65000",
		"ipv4-family unicast", "network 10.255.0.1 32",
	}},
	{xr.Dialect, "cisco-iosxr", []string{
		"hostname edge", "vrf mgmt", "rd 65000:1", "exit", "ipv4 access-list EDGE", "10 deny tcp any any eq 22", "exit",
		"interface GigabitEthernet0/0/0/0", "description uplink", "ipv4 address 10.0.12.2/30", "exit",
		"interface Loopback0", "ipv4 address 10.255.0.2/32", "exit",
		"router static", "address-family ipv4 unicast", "10.50.0.0/16 10.0.12.1", "root",
		"router ospf 1", "area 0", "interface GigabitEthernet0/0/0/0", "root",
		"router bgp 65000", "neighbor 10.0.12.1", "remote-as 65001",
	}},
}

// TestDialects checks what lab/sim relies on in every dialect: its name,
// commands that can all be reached, a parser that reads back what the
// renderer prints, and a log wording for every event.
func TestDialects(t *testing.T) {
	for _, tc := range dialects {
		t.Run(tc.name, func(t *testing.T) {
			if tc.d.Name() != tc.name || tc.d.Parser().Name != tc.name {
				t.Errorf("Name() = %q, Parser().Name = %q, want %q", tc.d.Name(), tc.d.Parser().Name, tc.name)
			}
			checkCommands(t, tc.d.Commands())
			checkRoundTrip(t, tc.d, tc.lines)
			checkSyslog(t, tc.d.Syslog())
		})
	}
}

// checkCommands: every command has keywords and an action, and typing its
// keywords in full finds it (no earlier command hides it).
func checkCommands(t *testing.T, cmds []dialect.Command) {
	if len(cmds) == 0 {
		t.Fatal("no commands")
	}
	for i, c := range cmds {
		if len(c.Words) == 0 || c.Run == nil {
			t.Errorf("command %d: %q has no keywords or no action", i, c.Words)
			continue
		}
		got, args := dialect.Match(cmds, c.Words)
		if got != &cmds[i] || len(args) != 0 {
			t.Errorf("%q is hidden by %q", strings.Join(c.Words, " "), strings.Join(got.Words, " "))
		}
	}
	if c, _ := dialect.Match(cmds, []string{"frobnicate"}); c != nil {
		t.Errorf("frobnicate matches %q", c.Words)
	}
}

// checkRoundTrip applies typed lines, renders the result, parses the text
// into an empty configuration and renders that again: the texts agree.
func checkRoundTrip(t *testing.T, d dialect.Dialect, lines []string) {
	var c dialect.Config
	if err := dialect.NewSession(&c, d.Parser()).Apply(lines); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if err := dialect.CheckRouting(c, d.Name()); err != nil {
		t.Fatalf("CheckRouting: %v", err)
	}
	text := d.Render(c, time.Date(2025, 10, 19, 3, 27, 0, 0, time.UTC), "admin")
	// A configuration file's framing is not configuration (lab/sim's
	// parseConfigText drops it too).
	var body []string
	for _, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); t != "Building configuration..." && t != "end" && t != "return" {
			body = append(body, l)
		}
	}
	var back dialect.Config
	if err := dialect.NewSession(&back, d.Parser()).Apply(body); err != nil {
		t.Fatalf("parsing the rendered text: %v\n%s", err, text)
	}
	if again := d.Render(back, time.Date(2025, 10, 19, 3, 27, 0, 0, time.UTC), "admin"); again != text {
		t.Errorf("round trip differs\nfirst:\n%s\nagain:\n%s", text, again)
	}
	for _, want := range []string{"edge", "uplink", "10.0.12.", "EDGE", "mgmt", "10.50.0.0", "65000", "65001"} {
		if !strings.Contains(text, want) {
			t.Errorf("rendered text lacks %q:\n%s", want, text)
		}
	}
	if err := dialect.NewSession(&dialect.Config{}, d.Parser()).Apply([]string{"frobnicate"}); err == nil {
		t.Error("an unknown configuration command is accepted")
	}
}

// checkSyslog: every event has a message, and Format makes an entry that
// carries it with a mnemonic naming its facility.
func checkSyslog(t *testing.T, w dialect.Syslog) {
	change := dialect.AdjacencyChange{Peer: "10.0.12.2", Interface: "Gi0", Prev: "Idle", State: "Established", Area: "0.0.0.0", RemoteAS: 65000}
	msgs := map[string]dialect.Message{
		"AdminDown":       w.AdminDown("Gi0"),
		"LinkState":       w.LinkState("Gi0", true),
		"LineProtocol":    w.LineProtocol("Gi0", false),
		"LinkErrors":      w.LinkErrors("Gi0", 30, true),
		"MTUChanged":      w.MTUChanged("Gi0", 1400),
		"ConfigEvent":     w.ConfigEvent(5, "COMMIT", "committed by alice"),
		"Boot":            w.Boot("1.2.3"),
		"CountersCleared": w.CountersCleared("all interfaces"),
		"AddressConflict": w.AddressConflict(netip.MustParseAddr("10.0.0.1"), "Gi0", "00:50:56:ab:cd:ef"),
		"BGPChanged":      w.BGPChanged(change),
		"OSPFChanged":     w.OSPFChanged(change),
	}
	seq := 0
	for event, m := range msgs {
		if m.Severity < 0 || m.Severity > 7 || m.Facility == "" || m.Name == "" || m.Text == "" {
			t.Errorf("%s: incomplete message %+v", event, m)
			continue
		}
		e := w.Format(m, time.Date(2025, 10, 19, 3, 27, 0, 0, time.UTC), "edge", func() int { seq++; return seq })
		if e.Message != m.Text || e.Severity != m.Severity || !strings.Contains(e.Mnemonic, m.Facility) ||
			!strings.Contains(e.Mnemonic, m.Name) || !strings.Contains(e.Text, m.Text) {
			t.Errorf("%s: Format(%+v) = %+v", event, m, e)
		}
	}
	for event, m := range msgs {
		if strings.Contains(m.Text, "%!") {
			t.Errorf("%s: badly formatted %q", event, m.Text)
		}
	}
	if !strings.Contains(msgs["BGPChanged"].Text, "10.0.12.2") {
		t.Errorf("BGPChanged does not name the peer: %q", msgs["BGPChanged"].Text)
	}
}
