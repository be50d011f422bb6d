package serve_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
)

// TestControllerResources reads the controller server's resources as a
// host would: the troubleshooting draft's mcp://<device>/<module>:<path>
// URIs resolved to the device's YANG data with a content id (ETag), and
// the saved reports.
func TestControllerResources(t *testing.T) {
	l := newTestLab(t)
	store := controller.Store{Dir: t.TempDir()}
	rep := l.ask(t, "what is wrong with the network?")
	if _, err := store.Save(rep); err != nil {
		t.Fatal(err)
	}
	srv := serve.New(l.ctl, store, "test")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := inMemoryHost(t, ctx, srv, "host", nil, nil)

	tmpls, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tm := range tmpls.ResourceTemplates {
		got = append(got, tm.URITemplate)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{serve.DeviceResourceTemplate, serve.D2DReportResourceTemplate, serve.ReportResourceTemplate}) {
		t.Errorf("templates %v", got)
	}

	for _, tc := range []struct {
		uri, want, err string
	}{
		{uri: "mcp://r1/openconfig-system:system/config/hostname", want: `"r1"`},
		{uri: "mcp://r2/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']/state/mtu", want: "1500"},
		{uri: "mcp://r3/ietf-routing:routing", want: "10.3.0.0/24"},
		{uri: "mcp://r1/openconfig-interfaces:interfaces/interface=LoopBack0/state", want: `"LoopBack0"`},
		{uri: "mcp://r9/openconfig-system:system", err: "not found"},
		{uri: "mcp://r1/system/config", err: "YANG module"},
		{uri: "netmcp://reports/last", want: `"id":"` + rep.ID + `"`},
		{uri: "netmcp://reports/" + rep.ID[:10], want: `"is_anomaly":`},
		{uri: "netmcp://reports", want: rep.ID},
		{uri: "netmcp://reports/nope", err: "nope"},
	} {
		t.Run(tc.uri, func(t *testing.T) {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := res.Contents[0]
			etag, _ := c.Meta[serve.MetaContentID].(string)
			if !strings.Contains(c.Text, tc.want) || c.MIMEType != "application/json" || !strings.HasPrefix(etag, `"sha256:`) {
				t.Fatalf("read %s: %s %v %.300s", tc.uri, c.MIMEType, c.Meta, c.Text)
			}
			// Read again with the content id: unchanged, no text.
			res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri, Meta: mcp.Meta{serve.MetaContentID: etag}})
			if err != nil {
				t.Fatal(err)
			}
			if c := res.Contents[0]; c.Text != "" || c.Meta[serve.MetaNotModified] != true || c.Meta[serve.MetaContentID] != etag {
				t.Errorf("conditional read: %+v", c)
			}
			// A stale content id gets the content.
			res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri, Meta: mcp.Meta{serve.MetaContentID: `"sha256:00"`}})
			if err != nil || !strings.Contains(res.Contents[0].Text, tc.want) {
				t.Errorf("read with a stale content id: %v", err)
			}
		})
	}
}

// TestParseDeviceURI checks the draft's URI form.
func TestParseDeviceURI(t *testing.T) {
	for _, tc := range []struct{ uri, dev, path string }{
		{"mcp://router1/ietf-interfaces:interfaces/interface=eth0", "router1", "/ietf-interfaces:interfaces/interface=eth0"},
		{"mcp://r1/openconfig-bgp:bgp/neighbors/neighbor=1.1.1.1", "r1", "/openconfig-bgp:bgp/neighbors/neighbor=1.1.1.1"},
		{"mcp://r1/", "", ""},
		{"mcp:///ietf-interfaces:interfaces", "", ""},
		{"http://r1/ietf-interfaces:interfaces", "", ""},
		{"mcp://r1/interfaces", "", ""},
	} {
		dev, path, err := serve.ParseDeviceURI(tc.uri)
		if dev != tc.dev || path != tc.path || (err == nil) != (tc.dev != "") {
			t.Errorf("%s: %q %q %v", tc.uri, dev, path, err)
		}
	}
}
