package netns

import (
	"errors"
	"os"
	"testing"

	"github.com/vishvananda/netns"
)

func TestInNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("switching network namespaces needs root")
	}
	self, err := netns.Get()
	if err != nil {
		t.Fatal(err)
	}
	defer self.Close()
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		fn   func() error
		want error
	}{
		{"fn succeeds", func() error { return nil }, nil},
		{"fn's error is returned", func() error { return boom }, boom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran := false
			err := InNamespace(self, func() error { ran = true; return tc.fn() })
			if !ran || !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("ran %v, err %v; want ran, err %v", ran, err, tc.want)
			}
		})
	}
	if err := InNamespace(netns.None(), func() error { t.Error("fn ran in no namespace"); return nil }); err == nil {
		t.Error("entering no namespace: want an error")
	}
}
