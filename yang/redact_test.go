package yang

import (
	"reflect"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	tree := loadTree(t, "running.json")
	before := Clone(tree)
	r := Redact(tree).(map[string]any)
	if !reflect.DeepEqual(tree, before) {
		t.Fatal("Redact modified its input")
	}
	text := jsonText(r)
	for _, secret := range []string{"s3cret-Pass", "n0t-public"} {
		if strings.Contains(text, secret) {
			t.Errorf("redacted tree still holds %q", secret)
		}
	}
	pw, _ := Get(r, MustParsePath("/openconfig-system:system/aaa/authentication/users/user[username='admin']/config/password"))
	if s, _ := pw.(string); !strings.HasPrefix(s, "[redacted:") || s != redactValue("s3cret-Pass") {
		t.Errorf("password = %v", pw)
	}
	if redactValue("a") == redactValue("b") {
		t.Error("different secrets share a tag")
	}
	// Unchanged subtrees are shared, not copied.
	if reflect.ValueOf(r["openconfig-vlan:vlans"]).Pointer() != reflect.ValueOf(tree["openconfig-vlan:vlans"]).Pointer() {
		t.Error("Redact copied a subtree without secrets")
	}
	if !IsSecret("openconfig-system:password") || IsSecret("name") {
		t.Error("IsSecret")
	}
}

func TestDiffAndUnifiedHideSecrets(t *testing.T) {
	a, b := loadTree(t, "running.json"), loadTree(t, "candidate.json")
	out := jsonText(Diff(a, b, nil)) + UnifiedDiff(a, b, "a", "b")
	for _, secret := range []string{"s3cret-Pass", "N3w-pass", "n0t-public"} {
		if strings.Contains(out, secret) {
			t.Errorf("diff output shows the secret %q", secret)
		}
	}
	if !strings.Contains(out, redactValue("N3w-pass")) {
		t.Error("the password change is not visible as a new tag")
	}
}

// TestSecretNamesMaskValuesOnly: the secret names are redact's (the
// server's masking uses the same list), and they mask leaf values, never a
// list or container that shares the name.
func TestSecretNamesMaskValuesOnly(t *testing.T) {
	tree := map[string]any{
		"community": []any{map[string]any{"name": "ro", "community-string": "n0t-public"}},
		"auth":      map[string]any{"key": "K3y-material", "keys": []any{"a"}},
		"ntp":       map[string]any{"shared-key": []any{"one", "two"}},
	}
	text := jsonText(Redact(tree))
	for _, secret := range []string{"n0t-public", "K3y-material", `"one"`} {
		if strings.Contains(text, secret) {
			t.Errorf("secret %s left: %s", secret, text)
		}
	}
	if !strings.Contains(text, `"name":"ro"`) {
		t.Errorf("the list named community was masked as a whole: %s", text)
	}
	changes := Diff(map[string]any{"community": []any{}}, tree, nil)
	if out := jsonText(changes); strings.Contains(out, "n0t-public") || !strings.Contains(out, "ro") {
		t.Errorf("diff of an added community entry: %s", out)
	}
}

// TestDiffHidesASecretWhoseValueChangesKind: a secret leaf replaced by a
// container (or a container by a leaf, as an edited candidate may do) is
// one modify change; the side that is a leaf value is still a tag, and
// every leaf of the container so named is tagged too.
func TestDiffHidesASecretWhoseValueChangesKind(t *testing.T) {
	leaf := map[string]any{"user": map[string]any{"password": "Old-s3cret", "secret": []any{"ls-1", "ls-2"}}}
	container := map[string]any{"user": map[string]any{"password": map[string]any{"type": "7"}, "secret": []any{map[string]any{"password": "Inner-s3cret"}}}}
	for _, tc := range []struct {
		name string
		a, b map[string]any
	}{{"leaf to container", leaf, container}, {"container to leaf", container, leaf}} {
		out := jsonText(Diff(tc.a, tc.b, nil)) + UnifiedDiff(tc.a, tc.b, "a", "b")
		for _, secret := range []string{"Old-s3cret", "ls-1", "Inner-s3cret"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s: the diff shows the secret %q: %s", tc.name, secret, out)
			}
		}
		if strings.Contains(out, `"type":"7"`) {
			t.Errorf("%s: a leaf inside the container named password is shown: %s", tc.name, out)
		}
	}
}

// TestSecretContainerIsMaskedWhole: every leaf inside a container whose
// name is secret is tagged, in Redact and in Diff.
func TestSecretContainerIsMaskedWhole(t *testing.T) {
	tree := map[string]any{"key": []any{map[string]any{"key-id": float64(1),
		"key-string": map[string]any{"hexadecimal-string": "0a0b0c0d0e", "more": []any{map[string]any{"x": "deep1"}}}}}}
	text := jsonText(Redact(tree)) + jsonText(Diff(map[string]any{}, tree, nil))
	for _, secret := range []string{"0a0b0c0d0e", "deep1"} {
		if strings.Contains(text, secret) {
			t.Errorf("secret %q left: %s", secret, text)
		}
	}
	if !strings.Contains(text, `"key-id":1`) {
		t.Errorf("the list named key was masked as a whole: %s", text)
	}
}
