package console

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

// TestSVGEscapes draws devices, interfaces and notes whose names carry
// markup (an LLDP neighbour names itself): the drawing is well-formed,
// carries them as text, and runs nothing.
func TestSVGEscapes(t *testing.T) {
	evil := `r1"><script>alert(1)</script>`
	topo := &topology.Topology{Devices: []topology.Device{{Name: evil, Kind: "router"}, {Name: "r2&'", Kind: "host"}},
		Links: []topology.Link{{A: evil + ":Gi<0>", B: "r2&':eth0"}}}
	g := buildGraph(topo, nil, nil)
	v := computeView(g, nil)
	lv := v.Links[g.Edges[0].ID]
	lv.Note = `<img src=x onerror=alert(2)>`
	v.Links[g.Edges[0].ID] = lv
	out := string(mapPage{G: g, V: v, FaultNodes: map[string]bool{evil: true}}.SVG())
	for _, bad := range []string{"<script", "<img"} {
		if strings.Contains(out, bad) {
			t.Errorf("the drawing holds %q unescaped:\n%s", bad, out)
		}
	}
	names := map[string]bool{}
	d := xml.NewDecoder(strings.NewReader(out))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, out)
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "data-node" || a.Name.Local == "data-a" {
					names[a.Value] = true
				}
			}
		}
	}
	for _, want := range []string{evil, "r2&'", evil + ":Gi<0>"} {
		if !names[want] {
			t.Errorf("%q not carried as it is (got %v)", want, names)
		}
	}
}
