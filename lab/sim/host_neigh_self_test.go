package sim

import (
	"strings"
	"testing"
)

// TestHostNeighNotSelf checks that a host that is its own resolver (h3
// runs the lab's DNS service and lists 10.3.0.10 in resolv.conf) shows no
// neighbour entry for its own address: Linux reaches itself over lo.
func TestHostNeighNotSelf(t *testing.T) {
	lab, _ := newTestLab(t)
	h3, err := lab.Host("h3")
	if err != nil {
		t.Fatal(err)
	}
	out, err := h3.Exec(t.Context(), "ip neigh")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "10.3.0.10 ") {
		t.Errorf("ip neigh on h3 lists h3's own address:\n%s", out)
	}
	if !strings.Contains(out, "10.3.0.1 dev eth0 lladdr") {
		t.Errorf("ip neigh on h3 lacks its gateway:\n%s", out)
	}
}
