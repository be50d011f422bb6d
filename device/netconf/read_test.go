package netconf

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
)

func ctx60(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestLabRead(t *testing.T) {
	l := startLab(t)
	d := l.open(t)
	info := d.Info()
	t.Logf("info: %+v", info)
	v, err := d.Get(ctx60(t), device.Running, "/ietf-interfaces:interfaces")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(v, "", " ")
	t.Logf("%s", b)
	v, err = d.Get(ctx60(t), device.Operational, "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.MarshalIndent(v, "", " ")
	t.Logf("%s", b)
	t.Logf("problems: %v", d.schema.problems)
}
