//go:build linux

package linux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/diag"
)

// FRRRunDir is where FRR keeps its sockets: FRRRunDir/NETNS for a
// namespace whose daemons run with "-N NETNS", FRRRunDir for the host.
var FRRRunDir = "/run/frr"

// hasFRR tells whether zebra runs for the driver's host or namespace.
func (d *Driver) hasFRR() bool {
	dir := FRRRunDir
	if d.netns != "" {
		dir = filepath.Join(dir, d.netns)
	}
	_, err := os.Stat(filepath.Join(dir, "zebra.vty"))
	return err == nil
}

// vtysh runs one vtysh command (never a shell) and returns its output.
func (d *Driver) vtysh(ctx context.Context, command string) ([]byte, error) {
	argv := []string{"vtysh"}
	if d.netns != "" {
		argv = append(argv, "-N", d.netns)
	}
	argv = append(argv, "-c", command)
	ctx, cancel := context.WithTimeout(ctx, ExecTimeout)
	defer cancel()
	cmd := diag.Command(ctx, argv)
	stdout, stderr := diag.LimitedBuffer{Max: ExecMaxOutput}, diag.LimitedBuffer{Max: 64 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("linux: vtysh %q: %w", command, ctx.Err())
	case stdout.Over:
		return nil, fmt.Errorf("linux: vtysh %q: output larger than %d bytes", command, ExecMaxOutput)
	case err != nil:
		return nil, fmt.Errorf("linux: vtysh %q: %v: %s%s", command, err, strings.TrimSpace(stdout.String()), strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// vtyshJSON runs a "show ... json" command and decodes it into v.
func (d *Driver) vtyshJSON(ctx context.Context, command string, v any) error {
	out, err := d.vtysh(ctx, command)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("linux: vtysh %q: %w", command, err)
	}
	return nil
}

// frrOSPF is what "show ip ospf [interface|neighbor] json" report.
type frrOSPF struct {
	RouterID   string
	Interfaces map[string]frrOSPFIface // by Linux name
	Neighbors  []frrOSPFNeighbor
}

type frrOSPFIface struct {
	Area        string `json:"area"`
	NetworkType string `json:"networkType"` // POINTOPOINT, BROADCAST, LOOPBACK
	Cost        int    `json:"cost"`
	HelloMsecs  int    `json:"timerMsecs"`
	DeadSecs    int    `json:"timerDeadSecs"`
	Passive     bool   `json:"timerPassiveIface"`
	Priority    int    `json:"priority"`
}

type frrOSPFNeighbor struct {
	RouterID  string
	Priority  int    `json:"nbrPriority"`
	State     string `json:"nbrState"` // "Full/-", "ExStart/DROther"
	Address   string `json:"ifaceAddress"`
	IfaceName string `json:"ifaceName"` // "gi0-0-0:10.0.12.1"
}

// readOSPF reads OSPF's router id, interfaces and neighbours; ok is false
// when ospfd runs no OSPF instance.
func (d *Driver) readOSPF(ctx context.Context) (o frrOSPF, ok bool, err error) {
	var g struct {
		RouterID string `json:"routerId"`
	}
	out, err := d.vtysh(ctx, "show ip ospf json")
	if err != nil {
		return o, false, err
	}
	if len(strings.TrimSpace(string(out))) == 0 {
		return o, false, nil // ospfd runs without "router ospf": it prints nothing
	}
	if err := json.Unmarshal(out, &g); err != nil {
		return o, false, fmt.Errorf("linux: vtysh \"show ip ospf json\": %w", err)
	}
	if g.RouterID == "" {
		return o, false, nil
	}
	o.RouterID = g.RouterID
	var ifs struct {
		Interfaces map[string]frrOSPFIface `json:"interfaces"`
	}
	if err := d.vtyshJSON(ctx, "show ip ospf interface json", &ifs); err != nil {
		return o, false, err
	}
	o.Interfaces = ifs.Interfaces
	var nb struct {
		Neighbors map[string][]frrOSPFNeighbor `json:"neighbors"`
	}
	if err := d.vtyshJSON(ctx, "show ip ospf neighbor json", &nb); err != nil {
		return o, false, err
	}
	for id, list := range nb.Neighbors {
		for _, n := range list {
			n.RouterID = id
			o.Neighbors = append(o.Neighbors, n)
		}
	}
	return o, true, nil
}

// frrBGPNeighbor is one entry of "show bgp neighbors json".
type frrBGPNeighbor struct {
	RemoteAS          uint32 `json:"remoteAs"`
	LocalAS           uint32 `json:"localAs"`
	Internal          bool   `json:"nbrInternalLink"`
	Description       string `json:"nbrDesc"`
	State             string `json:"bgpState"`
	LocalRouterID     string `json:"localRouterId"`
	EstablishedEpoch  int64  `json:"bgpTimerUpEstablishedEpoch"`
	LastErrorCode     string `json:"lastErrorCodeSubcode"` // "0202"
	LastNotification  string `json:"lastNotificationReason"`
	LastResetDueTo    string `json:"lastResetDueTo"`
	AdminShutDown     bool   `json:"adminShutDown"`
	AddressFamilyInfo map[string]struct {
		Accepted int `json:"acceptedPrefixCounter"`
		Sent     int `json:"sentPrefixCounter"`
	} `json:"addressFamilyInfo"`
}

// frrBGP is the BGP process: its AS, router id and neighbours.
type frrBGP struct {
	AS        uint32
	RouterID  string
	Neighbors map[string]frrBGPNeighbor
}

// readBGP reads BGP; ok is false when no BGP instance runs.
func (d *Driver) readBGP(ctx context.Context) (b frrBGP, ok bool, err error) {
	var sum map[string]struct {
		RouterID string `json:"routerId"`
		AS       uint32 `json:"as"`
	}
	out, err := d.vtysh(ctx, "show bgp summary json")
	if err != nil {
		return b, false, err
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		// "% BGP instance not found" and similar texts: no BGP.
		return b, false, nil
	}
	for _, s := range sum {
		if s.AS != 0 {
			b.AS, b.RouterID = s.AS, s.RouterID
			break
		}
	}
	if err := d.vtyshJSON(ctx, "show bgp neighbors json", &b.Neighbors); err != nil {
		return b, false, err
	}
	if b.AS == 0 {
		for _, n := range b.Neighbors {
			b.AS, b.RouterID = n.LocalAS, n.LocalRouterID
			break
		}
	}
	return b, b.AS != 0, nil
}

// frrRoute is one route of "show ip route json".
type frrRoute struct {
	Prefix    string `json:"prefix"`
	Protocol  string `json:"protocol"`
	Selected  bool   `json:"selected"`
	Installed bool   `json:"installed"`
	Distance  int    `json:"distance"`
	Metric    int    `json:"metric"`
	Nexthops  []struct {
		IP        string `json:"ip"`
		Interface string `json:"interfaceName"`
		Active    bool   `json:"active"`
		Blackhole bool   `json:"unreachable"`
		Recursive bool   `json:"recursive"`
		Type      string `json:"blackholeType"`
	} `json:"nexthops"`
}

// readRIB reads FRR's RIB of family 4 or 6.
func (d *Driver) readRIB(ctx context.Context, fam int) ([]frrRoute, error) {
	cmd := "show ip route json"
	if fam == 6 {
		cmd = "show ipv6 route json"
	}
	var rib map[string][]frrRoute
	if err := d.vtyshJSON(ctx, cmd, &rib); err != nil {
		return nil, err
	}
	var out []frrRoute
	for _, list := range rib {
		out = append(out, list...)
	}
	return out, nil
}

// frrProtocols maps FRR's route protocols to ietf-routing identities.
var frrProtocols = map[string]string{
	"connected": "ietf-routing:direct",
	"kernel":    "ietf-routing:direct",
	"local":     "ietf-routing:direct",
	"static":    "ietf-routing:static",
	"ospf":      "ietf-ospf:ospfv2",
	"bgp":       "netmcp:bgp",
}

// bgpErrorCodes and bgpErrorSubcodes name a NOTIFICATION's code and
// subcode as openconfig-bgp-types identities.
var bgpErrorCodes = map[int]string{
	1: "MESSAGE_HEADER_ERROR", 2: "OPEN_MESSAGE_ERROR", 3: "UPDATE_MESSAGE_ERROR",
	4: "HOLD_TIMER_EXPIRED", 5: "FINITE_STATE_MACHINE_ERROR", 6: "CEASE",
}

var bgpErrorSubcodes = map[int]map[int]string{
	1: {1: "CONNECTION_NOT_SYNCHRONIZED", 2: "BAD_MESSAGE_LENGTH", 3: "BAD_MESSAGE_TYPE"},
	2: {1: "UNSUPPORTED_VERSION_NUMBER", 2: "BAD_PEER_AS", 3: "BAD_BGP_IDENTIFIER",
		4: "UNSUPPORTED_OPTIONAL_PARAMETER", 6: "UNACCEPTABLE_HOLD_TIME", 7: "UNSUPPORTED_CAPABILITY"},
	3: {1: "MALFORMED_ATTRIBUTE_LIST", 2: "UNRECOGNIZED_WELL_KNOWN_ATTRIBUTE", 3: "MISSING_WELL_KNOWN_ATTRIBUTE",
		4: "ATTRIBUTE_FLAGS_ERROR", 5: "ATTRIBUTE_LENGTH_ERROR", 6: "INVALID_ORIGIN_ATTRIBUTE",
		8: "INVALID_NEXT_HOP_ATTRIBUTE", 9: "OPTIONAL_ATTRIBUTE_ERROR", 10: "INVALID_NETWORK_FIELD",
		11: "MALFORMED_AS_PATH"},
	6: {1: "MAX_PREFIX_REACHED", 2: "ADMINISTRATIVE_SHUTDOWN", 3: "PEER_DECONFIGURED",
		4: "ADMINISTRATIVE_RESET", 5: "CONNECTION_REJECTED", 6: "OTHER_CONFIGURATION_CHANGE",
		7: "CONNECTION_COLLISION_RESOLUTION", 8: "OUT_OF_RESOURCES"},
}

// bgpError decodes FRR's "0202" into openconfig identities.
func bgpError(codeSub string) (code, sub string, err error) {
	if len(codeSub) != 4 {
		return "", "", errors.New("not four hex digits")
	}
	c, err1 := strconv.ParseUint(codeSub[:2], 16, 8)
	s, err2 := strconv.ParseUint(codeSub[2:], 16, 8)
	if err1 != nil || err2 != nil {
		return "", "", fmt.Errorf("%q is not hex", codeSub)
	}
	if n, ok := bgpErrorCodes[int(c)]; ok {
		code = "openconfig-bgp-types:" + n
	}
	if n, ok := bgpErrorSubcodes[int(c)][int(s)]; ok {
		sub = "openconfig-bgp-types:" + n
	}
	return code, sub, nil
}
