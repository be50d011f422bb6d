package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
)

func read(cs *mcp.ClientSession, uri, cursor string) (*mcp.ReadResourceResult, error) {
	p := &mcp.ReadResourceParams{URI: uri}
	if cursor != "" {
		p.Meta = mcp.Meta{server.MetaCursor: cursor}
	}
	return cs.ReadResource(context.Background(), p)
}

func TestPaginationAndCursor(t *testing.T) {
	dev := servertest.New()
	for i := 0; i < 7; i++ {
		name := fmt.Sprintf("Loopback%d", i)
		dev.Ifaces = append(dev.Ifaces, map[string]any{"name": name, "state": map[string]any{"admin-status": "UP", "oper-status": "UP"}})
	}
	cs, _ := connect(t, dev, server.Options{PageSize: 4}, nil)
	var names []string
	cursor := ""
	for pages := 0; ; pages++ {
		res, err := read(cs, "network:///interfaces", cursor)
		if err != nil {
			t.Fatal(err)
		}
		var data struct {
			I struct {
				Interface []struct{ Name string } `json:"interface"`
			} `json:"openconfig-interfaces:interfaces"`
		}
		if err := json.Unmarshal([]byte(res.Contents[0].Text), &data); err != nil {
			t.Fatal(err)
		}
		for _, i := range data.I.Interface {
			names = append(names, i.Name)
		}
		next, _ := res.Meta[server.MetaNextCursor].(string)
		if next == "" {
			if pages != 2 {
				t.Errorf("%d pages, want 3", pages+1)
			}
			break
		}
		cursor = next
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
	}
	if len(names) != len(dev.Ifaces) {
		t.Fatalf("got %d interfaces %v, want %d", len(names), names, len(dev.Ifaces))
	}
	first, _ := read(cs, "network:///interfaces", "")
	good := first.Meta[server.MetaNextCursor].(string)
	for name, bad := range map[string]string{
		"flipped":   good[:len(good)-2] + "AA",
		"garbage":   "eyJzb3J0LWtleSI6IjEwLjAuMC4xLzI0In0=",
		"other URI": good,
	} {
		uri := "network:///interfaces"
		if name == "other URI" {
			uri = "network:///routing/ipv4/route-table"
		}
		_, err := read(cs, uri, bad)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s cursor: %v, want -32602", name, err)
		}
		if name != "other URI" && !strings.Contains(je.Message, "cursor was altered or is not from this server") {
			t.Errorf("%s cursor message %q", name, je.Message)
		}
	}
}

func TestResources(t *testing.T) {
	cs, _ := connect(t, servertest.New(), server.Options{}, nil)
	tests := []struct {
		uri, mime, contains string
		code                int64
	}{
		{"network:///system/cpu-utilization", "application/json", `"utilization":12.5`, 0},
		{"network:///system/memory-summary", "application/json", `"total":8589934592`, 0},
		{"network:///log/syslog/last2", "text/plain; charset=utf-8", "event 2", 0},
		{"network:///log/syslog/last0", "", "", jsonrpc.CodeInvalidParams},
		{"network:///log/syslog/last10001", "", "", jsonrpc.CodeInvalidParams},
		{"network:///log/syslog/lastx", "", "", jsonrpc.CodeInvalidParams},
		{"network:///file/running-config", "text/plain", "hostname r1", 0},
		{"network:///file/0/RP0/crashinfo", "application/json", `"reason":"SIGSEGV"`, 0},
		{"network:///routing/ipv4/route-table", "application/yang-data+json", `"0.0.0.0/0"`, 0},
		{"network:///interface/Nope0", "", "", jsonrpc.CodeInvalidParams},
		{"network:///no/such", "", "", jsonrpc.CodeInvalidParams},
	}
	for _, tt := range tests {
		res, err := read(cs, tt.uri, "")
		if tt.code != 0 {
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != tt.code {
				t.Errorf("%s: %v, want code %d", tt.uri, err, tt.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.uri, err)
			continue
		}
		c := res.Contents[0]
		if c.MIMEType != tt.mime || !strings.Contains(c.Text, tt.contains) {
			t.Errorf("%s: %s %q", tt.uri, c.MIMEType, c.Text)
		}
	}
	cpu, _ := read(cs, "network:///system/cpu-utilization", "")
	if m := cpu.Contents[0].Meta; m["unit"] != "percent" || m["precision"] != 0.1 || m["hardware-slot"] != "1/0" {
		t.Errorf("cpu _meta %v", m)
	}
	list, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Resources {
		if r.URI == "network:///system/cpu-utilization" && r.Meta["unit"] != "percent" {
			t.Errorf("cpu descriptor _meta %v", r.Meta)
		}
	}
}

// TestSyslogTimes: a syslog read's _meta gives each line's time, in
// order, as RFC 3339 UTC whatever the device's zone, and "" for a line
// the device gave no time (the controller's flap window dates lines by
// these, netproto.MetaLogTimes).
func TestSyslogTimes(t *testing.T) {
	dev := servertest.New()
	dev.Logs[1].Time = dev.Logs[1].Time.In(time.FixedZone("CET", 3600))
	dev.Logs[2].Time = time.Time{}
	cs, _ := connect(t, dev, server.Options{}, nil)
	res, err := read(cs, "network:///log/syslog/last3", "")
	if err != nil {
		t.Fatal(err)
	}
	m := res.Contents[0].Meta
	want := []any{"2023-11-14T22:13:20Z", "2023-11-14T22:13:21Z", ""}
	if got, _ := m[netproto.MetaLogTimes].([]any); fmt.Sprint(got) != fmt.Sprint(want) || m["lines"] != 3.0 {
		t.Errorf("syslog _meta %v, want lines 3 and %s %q", m, netproto.MetaLogTimes, want)
	}
}

func TestResourcesWrite(t *testing.T) {
	dev := servertest.New()
	w, _ := newWire(t, dev, server.Options{})
	w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	w.response(1)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	tests := []struct {
		params string
		code   float64
	}{
		{`{"uri":"network:///file/startup-config","text":"hostname new\n"}`, 0},
		{`{"uri":"network:///file/startup-config","text":"!! bad"}`, -32088},
		{`{"uri":"network:///file/running-config","text":"x"}`, -32083},
		{`{"uri":"network:///nope","text":"x"}`, -32602},
		{`{"uri":"network:///file/startup-config"}`, -32602},
	}
	w.send(`{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"network:///file/running-config"}}`)
	if r := w.response(5); get(r, "error", "code") != float64(-32602) {
		t.Errorf("subscribe to a static file: %s", js(r))
	}
	for i, tt := range tests {
		id := float64(10 + i)
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/write","params":%s}`, int(id), tt.params))
		r := w.response(id)
		if got, _ := get(r, "error", "code").(float64); got != tt.code {
			t.Errorf("%s: %s, want code %v", tt.params, js(r), tt.code)
		}
		if tt.code == 0 && get(r, "result", "size") != float64(13) {
			t.Errorf("write result %s", js(r))
		}
	}
	if dev.Startup != "hostname new\n" {
		t.Fatalf("startup-config = %q", dev.Startup)
	}
}
