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
