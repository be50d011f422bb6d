package netconf

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
)

// yumaModules are the YANG sources the conversion benchmark compiles.
var yumaModules = map[string]string{
	"ietf-interfaces": "/usr/share/yuma/modules/ietf/ietf-interfaces@2014-05-08.yang",
	"ietf-ip":         "/usr/share/yuma/modules/ietf/ietf-ip@2014-06-16.yang",
	"iana-if-type":    "/usr/share/yuma/modules/ietf/iana-if-type@2014-05-08.yang",
	"ietf-inet-types": "/usr/share/yuma/modules/ietf/ietf-inet-types@2013-07-15.yang",
	"ietf-yang-types": "/usr/share/yuma/modules/ietf/ietf-yang-types@2013-07-15.yang",
}

// BenchmarkXMLToRFC7951 converts a reply of about 1 MB (ietf-interfaces
// with addresses) through the compiled YANG.
func BenchmarkXMLToRFC7951(b *testing.B) {
	h := &helloInfo{Modules: map[string]moduleInfo{}, ByNamespace: map[string]string{}}
	for m := range yumaModules {
		h.Modules[m] = moduleInfo{Name: m}
	}
	s, err := loadSchema(context.Background(), h, func(_ context.Context, name, _ string) (string, error) {
		p, ok := yumaModules[name]
		if !ok {
			return "", fmt.Errorf("not in the benchmark set")
		}
		t, err := os.ReadFile(p)
		return string(t), err
	})
	if err != nil || s.top["ietf-interfaces"] == nil {
		b.Skipf("the yuma YANG files are not installed (apt-get install netconfd): %v %v", err, s)
	}
	for ns, m := range s.byNamespace {
		h.ByNamespace[ns] = m
	}
	var x strings.Builder
	x.WriteString(`<data><interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces">`)
	for i := 0; x.Len() < 1<<20; i++ {
		fmt.Fprintf(&x, `<interface><name>eth%d</name><description>port %d</description><type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type><enabled>true</enabled><ipv4 xmlns="urn:ietf:params:xml:ns:yang:ietf-ip"><mtu>1500</mtu><address><ip>10.%d.%d.1</ip><prefix-length>24</prefix-length></address></ipv4></interface>`, i, i, i/256%256, i%256)
	}
	x.WriteString(`</interfaces></data>`)
	data := []byte(x.String())
	d := &Driver{}
	d.conn = &conn{hello: h}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tree, err := d.tree(data, s)
		if err != nil || tree["ietf-interfaces:interfaces"] == nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetInterfaces is network.yang.get of the interfaces (running)
// from netconfd over SSH, through the driver, the schema already loaded.
func BenchmarkGetInterfaces(b *testing.B) {
	l := startLab(b)
	d := l.open(b)
	ctx := context.Background()
	if _, err := d.Get(ctx, device.Running, "/ietf-interfaces:interfaces"); err != nil {
		b.Fatal(err)
	}
	durs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := d.Get(ctx, device.Running, "/ietf-interfaces:interfaces"); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
	}
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds()), "p50-µs")
}
