package redact

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTreeGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "tree.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(tree)
	r := New(Options{})
	r.LearnTree(tree) // the device's configuration: its secrets become known
	out := r.Tree(tree)
	after, _ := json.Marshal(tree)
	if !bytes.Equal(before, after) {
		t.Fatal("Tree modified its input")
	}
	got, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Adm1nPass!", "$6$salt$hash", "TacKey123", "public-ro", "AuthKey0x11", "PrivKey0x22",
		"KeyChainSecret", "123456789", "psk-one", "psk-two"} {
		if strings.Contains(string(got), s) {
			t.Errorf("secret %q left", s)
		}
	}
	for _, k := range []string{`"readers"`, `"hmac-sha-256"`, `"key-id": 1`, `"retries": 3`, `"mtu": 1500`, `"SYSTEM_ROLE_ADMIN"`} {
		if !strings.Contains(string(got), k) {
			t.Errorf("non-secret %s masked", k)
		}
	}
	golden(t, "tree.golden.json", string(got)+"\n")
}

func TestJSONAndString(t *testing.T) {
	r := New(Options{Secrets: []string{"hunter22", "abc"}, ExtraLeaves: []string{"token-value"},
		ExtraPaths: []string{"/m:top/list[name='x']/note"}})
	tests := []struct{ in, want string }{
		{`{"m:top":{"list":[{"name":"x","note":"n1"}],"token-value":"t"}}`, `{"m:top":{"list":[{"name":"x","note":"******"}],"token-value":"******"}}`},
		{`{"cmd":"show run | i hunter22"}`, `{"cmd":"show run | i ******"}`},
		{`{"n": 1.50}`, `{"n":1.50}`},
		{`not json hunter22`, `not json ******`},
		{`{"a":1} trailing hunter22`, `{"a":1} trailing ******`},
	}
	for _, tt := range tests {
		if got := string(r.JSON([]byte(tt.in))); got != tt.want {
			t.Errorf("JSON(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := r.String("abc hunter22hunter22"); got != "abc ************" {
		t.Errorf("String = %q (short secrets are not known, long ones all masked)", got)
	}
	if r.Known() != 1 {
		t.Errorf("Known() = %d", r.Known())
	}
	// A replacement that reveals a new occurrence across its edge is masked too.
	r2 := New(Options{Secrets: []string{"*bbb"}})
	if got := r2.String("**bbbbbb"); strings.Contains(got, "*bbb") && strings.Trim(got, "*") != "" {
		t.Errorf("fixpoint: %q", got)
	}
}

// TestTreeMasksDataModelSNMPCommunity: the SNMP community of netmcp's data
// model (docs/datamodel.md) is the leaf community-string inside the
// community list; the list's entry name stays readable.
func TestTreeMasksDataModelSNMPCommunity(t *testing.T) {
	tree := map[string]any{"openconfig-system:system": map[string]any{"snmp": map[string]any{"communities": map[string]any{
		"community": []any{map[string]any{"name": "community1", "config": map[string]any{
			"name": "community1", "community-string": "s3cr3t-ro", "access": "READ_ONLY"}}}}}}}
	got, _ := json.Marshal(New(Options{}).Tree(tree))
	if strings.Contains(string(got), "s3cr3t-ro") {
		t.Fatalf("community string left in %s", got)
	}
	if !strings.Contains(string(got), `"name":"community1"`) || !strings.Contains(string(got), `"READ_ONLY"`) {
		t.Fatalf("non-secret members masked: %s", got)
	}
}

func TestTreeChangedSharesWhatItDoesNotMask(t *testing.T) {
	r := New(Options{ExtraPaths: []string{"/m:a/b/note"}})
	clean := map[string]any{"m:a": map[string]any{"b": []any{map[string]any{"name": "x"}}}, "n": json.Number("7")}
	out, changed := r.TreeChanged(clean)
	if changed {
		t.Fatalf("nothing secret, yet changed: %v", out)
	}
	if !sameMap(out, clean) {
		t.Error("an unchanged tree was copied, not returned as is")
	}

	inner := map[string]any{"mtu": json.Number("1500")}
	tree := map[string]any{
		"m:a":   map[string]any{"b": map[string]any{"note": "deep-secret", "other": "keep"}},
		"m:z":   map[string]any{"b": map[string]any{"note": "not at the path"}},
		"iface": inner,
	}
	out, changed = r.TreeChanged(tree)
	if !changed {
		t.Fatal("a secret path was not masked")
	}
	got := out.(map[string]any)
	if note := got["m:a"].(map[string]any)["b"].(map[string]any)["note"]; note != Mask {
		t.Errorf("/m:a/b/note = %v, want the mask", note)
	}
	if note := got["m:z"].(map[string]any)["b"].(map[string]any)["note"]; note != "not at the path" {
		t.Errorf("/m:z/b/note = %v: a leaf named like the path's end, elsewhere, was masked", note)
	}
	if !sameMap(got["iface"], inner) {
		t.Error("an unchanged subtree was copied, not shared")
	}
	if tree["m:a"].(map[string]any)["b"].(map[string]any)["note"] != "deep-secret" {
		t.Error("Tree modified its input")
	}
}

// sameMap reports whether a and b are the same map (not merely equal).
func sameMap(a, b any) bool {
	ma, ok1 := a.(map[string]any)
	mb, ok2 := b.(map[string]any)
	if !ok1 || !ok2 {
		return false
	}
	ma["\x00probe"] = true
	defer delete(ma, "\x00probe")
	return mb["\x00probe"] == true
}

func TestTreeSecretContainersAndLists(t *testing.T) {
	r := New(Options{})
	tree := map[string]any{
		"ietf-key-chain:key-chains": map[string]any{"key-chain": []any{map[string]any{
			"name": "kc1",
			"key": []any{map[string]any{"key-id": json.Number("1"),
				"key-string": map[string]any{"hexadecimal-string": "0a0b0c0d0e", "extra": []any{map[string]any{"x": "deep1"}}}}},
		}}},
		"openconfig-system:system": map[string]any{"snmp": map[string]any{"communities": map[string]any{
			"community": []any{map[string]any{"name": "monitoring", "community-string": "n0t-public"}}}}},
		"psk": []any{"leaflist-1", "leaflist-2"},
	}
	r.LearnTree(tree)
	b, _ := json.Marshal(r.Tree(tree))
	out := string(b)
	for _, secret := range []string{"0a0b0c0d0e", "deep1", "n0t-public", "leaflist-1"} {
		if strings.Contains(out, secret) {
			t.Errorf("secret %q left: %s", secret, out)
		}
	}
	for _, public := range []string{`"name":"kc1"`, `"key-id":1`, `"name":"monitoring"`} {
		if !strings.Contains(out, public) {
			t.Errorf("%s masked: a list named like a secret is not secret as a whole: %s", public, out)
		}
	}
	if r.String("a 0a0b0c0d0e b") == "a 0a0b0c0d0e b" {
		t.Error("a value masked inside a secret container was not learnt")
	}
}

func TestValueAt(t *testing.T) {
	r := New(Options{Secrets: []string{"KnownOne1"}})
	tests := []struct {
		path string
		v    any
		want string
	}{
		{"/openconfig-system:system/aaa/authentication/users/user[username='x']/config/password", "plain-pw", `"******"`},
		{"/openconfig-system:system/aaa/authentication/users/user[username='x']/config", map[string]any{"password": "p1", "username": "x"}, `{"password":"******","username":"x"}`},
		{"/ietf-snmp:snmp/community[index='c1']/text-name", "public", `"******"`},
		{"/ietf-key-chain:key-chains/key-chain[name='k']/key[key-id='1']/key-string", map[string]any{"keystring": "abc"}, `{"keystring":"******"}`},
		{"/openconfig-interfaces:interfaces/interface[name='Gi0']/config/description", "uplink KnownOne1", `"uplink ******"`},
		{"/openconfig-interfaces:interfaces/interface[name='Gi0']/config/description", "uplink", `"uplink"`},
	}
	for _, tt := range tests {
		got, _ := r.ValueAt(tt.path, tt.v)
		b, _ := json.Marshal(got)
		if string(b) != tt.want {
			t.Errorf("ValueAt(%s, %v) = %s, want %s", tt.path, tt.v, b, tt.want)
		}
	}
	if got, _ := r.ValueAtStructural("/a:b/description", "uplink KnownOne1"); got != "uplink KnownOne1" {
		t.Errorf("ValueAtStructural masked a known value: %v", got)
	}
}

func TestNumberText(t *testing.T) {
	for _, v := range []any{0, 7, -42, int64(1) << 40, uint32(4294967295), uint64(1) << 63, 1.5, 1500.0, -0.25, 1e-7, 3e21, 123456789.125} {
		want, _ := json.Marshal(v)
		if got := numberText(v); got != string(want) {
			t.Errorf("numberText(%v) = %s, encoding/json writes %s", v, got, want)
		}
	}
}
