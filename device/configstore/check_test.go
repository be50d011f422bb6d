package configstore

import (
	"context"
	"errors"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// CheckEdit reports what Edit would, and changes nothing.
func TestCheckEdit(t *testing.T) {
	ctx := context.Background()
	s, err := Open(nil, Options{Schema: yang.DefaultSchema()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, b := device.Owner{Session: "a"}, device.Owner{Session: "b"}
	good := []device.Edit{{Path: "/openconfig-vlan:vlans/vlan[vlan-id='10']", Value: map[string]any{"vlan-id": 10, "config": map[string]any{"vlan-id": 10}}}}
	bad := []device.Edit{{Path: "/openconfig-vlan:vlans/vlan[vlan-id='4095']", Value: map[string]any{"vlan-id": 4095, "config": map[string]any{"vlan-id": 4095}}}}
	if err := s.CheckEdit(ctx, a, good); err != nil {
		t.Fatalf("good edit: %v", err)
	}
	if _, held := s.LockHolder(); held {
		t.Fatal("CheckEdit took the lock")
	}
	var ne *netproto.Error
	if err := s.CheckEdit(ctx, a, bad); !errors.As(err, &ne) || ne.Code != netproto.CodeConfigIncompatible {
		t.Fatalf("VLAN 4095: %v", err)
	}
	if err := s.Edit(ctx, a, good); err != nil {
		t.Fatal(err)
	}
	var le *LockedError
	for _, edits := range [][]device.Edit{good, nil} {
		if err := s.CheckEdit(ctx, b, edits); !errors.As(err, &le) || le.Holder != a {
			t.Fatalf("other owner: %v, want a *LockedError naming a", err)
		}
	}
	if err := s.CheckEdit(ctx, a, nil); err != nil {
		t.Fatalf("holder, no edits: %v", err)
	}
}
