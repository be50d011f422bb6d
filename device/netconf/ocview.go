package netconf

import (
	"context"
	"strings"

	"github.com/netmcp/netmcp/device/ocview"
	nyang "github.com/netmcp/netmcp/yang"
)

const (
	ocModule     = ocview.Module
	ietfIfModule = ocview.IETFModule
)

// getOCView serves a path under /openconfig-interfaces:interfaces from the
// device's ietf-interfaces (and interfaces-state in the operational
// datastore), through the shared view of package device/ocview.
func (d *Driver) getOCView(ctx context.Context, src string, p nyang.Path, s *schema) (any, error) {
	b := d.builder(s)
	f1, err := b.filter(nyang.Path{{Module: ietfIfModule, Name: "interfaces"}})
	if err != nil {
		return nil, err
	}
	filter := f1
	if src == "" {
		// One filter selecting both top-level containers.
		filter = strings.TrimSuffix(f1, "</filter>") + `<interfaces-state xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"/></filter>`
	}
	body, err := d.fetch(ctx, src, filter)
	if err != nil {
		return nil, err
	}
	tree, err := d.tree(body, s)
	if err != nil {
		return nil, err
	}
	view := ocview.FromIETF(tree)
	if view == nil {
		view = map[string]any{}
	}
	return getAt(map[string]any{ocview.Member: view}, p, p.String())
}
