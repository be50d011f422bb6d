package remedy

import (
	"encoding/json"
	"reflect"
	"testing"
)

// aclData is the "data" of a get of PathACL on a device with ACL
// NO-ICMP-OUT (10 deny icmp, 20 deny icmp to 10.0.0.0/8, 30 permit ip)
// bound egress on Gi1, and ACL ONLY-SSH (10 permit tcp port 22, then the
// implicit deny) bound ingress on Gi2.
const aclData = `{"openconfig-acl:acl": {
 "acl-sets": {"acl-set": [
  {"name": "NO-ICMP-OUT", "type": "openconfig-acl:ACL_IPV4", "acl-entries": {"acl-entry": [
   {"sequence-id": 10, "actions": {"config": {"forwarding-action": "openconfig-acl:DROP"}},
    "ipv4": {"config": {"protocol": "openconfig-packet-match-types:IP_ICMP"}}},
   {"sequence-id": 20, "actions": {"config": {"forwarding-action": "DROP"}},
    "ipv4": {"config": {"protocol": 1, "destination-address": "10.0.0.0/8"}}},
   {"sequence-id": 30, "actions": {"config": {"forwarding-action": "ACCEPT"}}, "ipv4": {"config": {}}}]}},
  {"name": "ONLY-SSH", "type": "ACL_IPV4", "acl-entries": {"acl-entry": [
   {"sequence-id": 10, "actions": {"config": {"forwarding-action": "ACCEPT"}},
    "ipv4": {"config": {"protocol": "IP_TCP"}}, "transport": {"config": {"destination-port": 22}}}]}}]},
 "interfaces": {"interface": [
  {"id": "Gi1", "egress-acl-sets": {"egress-acl-set": [{"set-name": "NO-ICMP-OUT", "type": "ACL_IPV4", "config": {"set-name": "NO-ICMP-OUT"}}]}},
  {"id": "Gi2", "ingress-acl-sets": {"ingress-acl-set": [{"config": {"set-name": "ONLY-SSH", "type": "ACL_IPV4"}}]}}]}}}`

func data(t *testing.T) any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(aclData), &v); err != nil {
		t.Fatal(err)
	}
	return v["openconfig-acl:acl"]
}

func TestACLFix(t *testing.T) {
	icmp := Traffic{Protocol: "ICMP"}
	for _, tc := range []struct {
		name    string
		iface   string
		egress  bool
		t       Traffic
		ok      bool
		fix     string
		summary string
		paths   []string
		cli     []string
	}{
		{"deciding entry and the later one that drops", "Gi1", true, icmp, true,
			"Remove entries 10, 20 (10 deny icmp any any; 20 deny icmp any 10.0.0.0/8) from ACL NO-ICMP-OUT on r2.",
			"remove entries 10, 20 of ACL NO-ICMP-OUT",
			[]string{"/openconfig-acl:acl/acl-sets/acl-set[name='NO-ICMP-OUT'][type='ACL_IPV4']/acl-entries/acl-entry[sequence-id='10']",
				"/openconfig-acl:acl/acl-sets/acl-set[name='NO-ICMP-OUT'][type='ACL_IPV4']/acl-entries/acl-entry[sequence-id='20']"},
			[]string{"acl NO-ICMP-OUT", " undo rule 10", " undo rule 20"}},
		{"implicit deny: unbind", "Gi2", false, icmp, true,
			"Unbind ACL ONLY-SSH from r2:Gi2 (in).",
			"unbind ACL ONLY-SSH from Gi2 in",
			[]string{"/openconfig-acl:acl/interfaces/interface[id='Gi2']/ingress-acl-sets/ingress-acl-set[set-name='ONLY-SSH'][type='ACL_IPV4']"},
			nil},
		{"permitted traffic", "Gi1", true, Traffic{Protocol: "TCP", Port: 179}, false, "", "", nil, nil},
		{"other direction", "Gi1", false, icmp, false, "", "", nil, nil},
		{"no ACL on the interface", "Gi9", true, icmp, false, "", "", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fix, ch, ok := ACLFix("r2", data(t), tc.iface, tc.egress, tc.t)
			if ok != tc.ok || fix != tc.fix || ch.Summary != tc.summary || !reflect.DeepEqual(ch.CLI, tc.cli) {
				t.Fatalf("ACLFix = %q, %+v, %v; want %q, summary %q, cli %q, %v", fix, ch, ok, tc.fix, tc.summary, tc.cli, tc.ok)
			}
			var paths []string
			for _, e := range ch.Edit {
				if e.Operation != "delete" {
					t.Errorf("operation %q, want delete", e.Operation)
				}
				paths = append(paths, e.Path)
			}
			if !reflect.DeepEqual(paths, tc.paths) {
				t.Errorf("edit paths %q, want %q", paths, tc.paths)
			}
			if ok && (ch.Device != "r2" || ch.Cause != "icmp_acl_block" || ch.Diff == "") {
				t.Errorf("change %+v: want device r2, cause icmp_acl_block and a diff", ch)
			}
		})
	}
}

func TestACLSequences(t *testing.T) {
	for _, tc := range []struct {
		set  string
		want []int
	}{
		{"NO-ICMP-OUT", []int{10, 20, 30}},
		{"ONLY-SSH", []int{10}},
		{"MISSING", nil},
	} {
		if got := ACLSequences(data(t), tc.set); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ACLSequences(%s) = %v, want %v", tc.set, got, tc.want)
		}
	}
}

func TestACLCauseName(t *testing.T) {
	for _, tc := range []struct {
		t    Traffic
		want string
	}{
		{Traffic{Protocol: "ICMP"}, "icmp_acl_block"},
		{Traffic{Protocol: "OSPF"}, "ospf_acl_block"},
		{Traffic{Protocol: "ARP"}, "arp_acl_block"},
		{Traffic{Protocol: "TCP", Port: 179}, "bgp_acl_block"},
		{Traffic{Protocol: "UDP", Port: 53}, "dns_port_blocked"},
		{Traffic{Protocol: "TCP", Port: 443}, "http_acl_block"},
		{Traffic{Protocol: "TCP", Port: 22}, "acl_block"},
	} {
		if got := ACLCauseName(tc.t); got != tc.want {
			t.Errorf("ACLCauseName(%+v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}
