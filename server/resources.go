package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/transport"
	"github.com/netmcp/netmcp/yang"
)

// Meta keys of resource results.
const (
	// MetaNextCursor repeats a page's nextCursor inside the result's _meta,
	// for typed clients whose ReadResourceResult has no nextCursor member.
	MetaNextCursor = netproto.ExtensionID + "/nextCursor"
	// MetaCursor is where a typed client puts the cursor of resources/read
	// (params._meta); a "cursor" parameter is moved there by transport.Normalize.
	MetaCursor = transport.MetaCursor
)

// YANG paths read by the resources.
const (
	pathInterfaces = "/openconfig-interfaces:interfaces"
	pathRIBs       = "/ietf-routing:routing/ribs"
)

// addResources registers the resources of MCP-NET 5.1 that the driver can serve.
func (s *Server) addResources() {
	h := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		res, err := s.read(ctx, req.Params.URI, metaString(req.Params.Meta, MetaCursor))
		if err != nil {
			return nil, err
		}
		return res.ReadResourceResult, nil
	}
	res := func(uri, name, mime, desc string, meta mcp.Meta) {
		s.mcp.AddResource(&mcp.Resource{URI: uri, Name: name, MIMEType: mime, Description: desc, Meta: meta}, h)
	}
	tmpl := func(t, name, mime, desc string, meta mcp.Meta) {
		s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: t, Name: name, MIMEType: mime, Description: desc, Meta: meta}, h)
	}
	if s.hasYang() {
		tmpl(netproto.URIInterfaceTemplate, "interface", netproto.MIMEYangJSON, "One interface (OpenConfig), with its state.", nil)
		res(netproto.URIInterfaces, "interfaces", netproto.MIMEYangJSON, "All interfaces; paginated with nextCursor.", nil)
		res(netproto.URIIPv4RouteTable, "ipv4-route-table", netproto.MIMEYangJSON, "IPv4 RIB (operational); paginated.", nil)
		res(netproto.URIIPv6RouteTable, "ipv6-route-table", netproto.MIMEYangJSON, "IPv6 RIB (operational); paginated.", nil)
	}
	if s.tel != nil {
		cpu := mcp.Meta{netproto.MetaUnit: "percent", netproto.MetaPrecision: 0.1}
		mem := mcp.Meta{netproto.MetaUnit: "bytes", netproto.MetaPrecision: 1}
		if st, err := s.tel.CPU(context.Background()); err == nil && st.Slot != "" {
			cpu[netproto.MetaHardwareSlot] = st.Slot
		}
		if st, err := s.tel.Memory(context.Background()); err == nil && st.Slot != "" {
			mem[netproto.MetaHardwareSlot] = st.Slot
		}
		res(netproto.URICPU, "cpu-utilization", netproto.MIMEJSON, "CPU utilisation in percent; subscribable.", cpu)
		res(netproto.URIMemory, "memory-summary", netproto.MIMEJSON, "Memory usage in bytes; subscribable.", mem)
		tmpl(netproto.URISyslogTemplate, "syslog", netproto.MIMETextUTF8, "The last {count} syslog lines (1..10000); subscribable.", mcp.Meta{"maxCount": netproto.MaxSyslogLines})
		tmpl(netproto.URICrashinfoTemplate, "crashinfo", netproto.MIMEJSON, "Crash records of a slot (JSON array).", nil)
	}
	if s.files != nil {
		rw := mcp.Meta{"readOnly": false}
		res(netproto.URIRunningConfig, "running-config", netproto.MIMEText, "Running configuration text.", mcp.Meta{"readOnly": true})
		res(netproto.URIStartupConfig, "startup-config", netproto.MIMEText, "Startup configuration text; writable with resources/write.", rw)
		res(netproto.URICandidateConfig, "candidate-config", netproto.MIMEText, "Candidate configuration text; writable with resources/write.", rw)
	}
}

func metaString(m mcp.Meta, key string) string {
	v, _ := m[key].(string)
	return v
}

// readResult is a resources/read result that may carry nextCursor, which
// mcp.ReadResourceResult has no member for, and the resultType of protocol
// 2026-07-28, which only the SDK can set on its own results.
type readResult struct {
	*mcp.ReadResourceResult
	NextCursor string
	// ResultType is "complete" where the SDK marks its own multi round-trip
	// results (tools/call, prompts/get, resources/read) so: see
	// resultTypeFor. Clients of 2026-07-28 refuse a read result without it.
	ResultType string
}

// resultTypeComplete is the resultType of a final result (SEP-2322).
const resultTypeComplete = "complete"

// resultTypeFor returns the resultType the SDK gives its own results of
// resources/read on ss (mcp's handleMultiRoundTripResult): "complete" when
// the client's protocol version is 2026-07-28 or later (the version of
// every request of a 2026-07-28 session, or the one an initialize asked
// for; the latest when unknown), "" otherwise.
func resultTypeFor(ss *mcp.ServerSession) string {
	version := protocolMRTR // the SDK's latest version, assumed when unknown
	if ss != nil {
		if p := ss.InitializeParams(); p != nil {
			version = p.ProtocolVersion
		}
	}
	if version >= protocolMRTR {
		return resultTypeComplete
	}
	return ""
}

// MarshalJSON implements json.Marshaler: the result plus "nextCursor" and
// "resultType" when set.
func (r *readResult) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.ReadResourceResult)
	if err != nil || (r.NextCursor == "" && r.ResultType == "") {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if r.NextCursor != "" {
		m["nextCursor"], _ = json.Marshal(r.NextCursor)
	}
	if r.ResultType != "" {
		m["resultType"], _ = json.Marshal(r.ResultType)
	}
	return json.Marshal(m)
}

// syncDevice brings the device's state up to date with what another
// server process sharing its state directory changed (device.Syncer).
func (s *Server) syncDevice() {
	if sy, ok := s.drv.(device.Syncer); ok {
		if err := sy.Sync(); err != nil {
			s.log.Warn("device state not reread from the state directory", "error", err)
		}
	}
}

// read reads a network:/// resource.
func (s *Server) read(ctx context.Context, uri, cur string) (*readResult, error) {
	s.syncDevice()
	switch {
	case s.hasYang() && uri == netproto.URIInterfaces:
		return s.readInterfaces(ctx, uri, cur)
	case s.hasYang() && (uri == netproto.URIIPv4RouteTable || uri == netproto.URIIPv6RouteTable):
		return s.readRoutes(ctx, uri, cur)
	case cur != "":
		return nil, invalidParams("%s is not paginated; remove the cursor", uri)
	case s.hasYang() && strings.HasPrefix(uri, netproto.URIInterfacePrefix):
		return s.readInterface(ctx, uri)
	case s.tel != nil && uri == netproto.URICPU:
		st, err := s.tel.CPU(ctx)
		return s.jsonResult(uri, netproto.MIMEJSON, st, err, mcp.Meta{netproto.MetaUnit: "percent", netproto.MetaPrecision: 0.1}, st.Slot)
	case s.tel != nil && uri == netproto.URIMemory:
		st, err := s.tel.Memory(ctx)
		return s.jsonResult(uri, netproto.MIMEJSON, st, err, mcp.Meta{netproto.MetaUnit: "bytes", netproto.MetaPrecision: 1}, st.Slot)
	case s.tel != nil && strings.HasPrefix(uri, netproto.URISyslogPrefix):
		return s.readSyslog(ctx, uri)
	case s.tel != nil && strings.HasPrefix(uri, netproto.URIFilePrefix) && strings.HasSuffix(uri, netproto.URICrashinfoSuffix):
		slot, err := url.PathUnescape(strings.TrimSuffix(strings.TrimPrefix(uri, netproto.URIFilePrefix), netproto.URICrashinfoSuffix))
		if err != nil || slot == "" {
			return nil, invalidParams("bad slot in %s", uri)
		}
		recs, err := s.tel.Crashinfo(ctx, slot)
		if recs == nil {
			recs = []device.CrashRecord{}
		}
		return s.jsonResult(uri, netproto.MIMEJSON, recs, err, mcp.Meta{}, slot)
	case s.cfg != nil && uri == URICommitHistory:
		return s.readHistory(ctx)
	case s.cfg != nil && strings.HasPrefix(uri, URICommitPrefix):
		return s.readCommit(ctx, uri)
	case (s.cfg != nil || s.files != nil) && uri == URIHandles:
		return s.readHandles(ctx)
	case s.files != nil && (uri == netproto.URIRunningConfig || uri == netproto.URIStartupConfig || uri == netproto.URICandidateConfig):
		b, err := s.files.ReadFile(ctx, strings.TrimPrefix(uri, netproto.URIFilePrefix))
		if err != nil {
			return nil, rpc(err)
		}
		return textResult1(uri, netproto.MIMEText, string(b), nil), nil
	}
	return nil, invalidParams("unknown resource URI %q (see resources/list and resources/templates/list)", uri)
}

func textResult1(uri, mime, text string, meta mcp.Meta) *readResult {
	return &readResult{ReadResourceResult: &mcp.ReadResourceResult{
		// Device state changes at any time and may be confidential:
		// immediately stale, never cached by shared intermediaries.
		Cacheable: mcp.Cacheable{TTLMs: 0, CacheScope: "private"},
		Contents:  []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text, Meta: meta}},
	}}
}

func (s *Server) jsonResult(uri, mime string, v any, err error, meta mcp.Meta, slot string) (*readResult, error) {
	if err != nil {
		return nil, rpc(err)
	}
	b, err := marshal(v)
	if err != nil {
		return nil, err
	}
	if slot != "" {
		meta[netproto.MetaHardwareSlot] = slot
	}
	if len(meta) == 0 {
		meta = nil
	}
	return textResult1(uri, mime, string(b), meta), nil
}

func (s *Server) readInterface(ctx context.Context, uri string) (*readResult, error) {
	name, err := url.PathUnescape(strings.TrimPrefix(uri, netproto.URIInterfacePrefix))
	if err != nil || name == "" {
		return nil, invalidParams("bad interface name in %s", uri)
	}
	path := fmt.Sprintf("%s/interface[name=%s]", pathInterfaces, quoteKey(name))
	data, err := s.drv.Get(ctx, device.Operational, path)
	if err != nil {
		if RPCError(err) != nil && strings.Contains(err.Error(), "no data") {
			return nil, invalidParams("no interface %q on this device", name)
		}
		return nil, rpc(err)
	}
	if l, ok := data.([]any); ok && len(l) == 1 { // a driver may return the list
		data = l[0]
	}
	return s.jsonResult(uri, netproto.MIMEYangJSON, map[string]any{"openconfig-interfaces:interface": data}, nil, mcp.Meta{}, "")
}

// quoteKey quotes a list key value for an XPath predicate.
func quoteKey(v string) string {
	if strings.Contains(v, "'") {
		return `"` + v + `"`
	}
	return "'" + v + "'"
}

// page returns items[off:off+pageSize] and the next cursor ("" at the end).
func (s *Server) page(uri string, items []any, off int) ([]any, string, error) {
	if off > len(items) {
		return nil, "", invalidParams("cursor is past the end of %s (the list shrank); start again without a cursor", uri)
	}
	end := min(off+s.opts.PageSize, len(items))
	next := ""
	if end < len(items) {
		next = s.encodeCursor(cursor{URI: uri, Offset: end})
	}
	return items[off:end], next, nil
}

func (s *Server) offset(uri, cur string) (int, error) {
	if cur == "" {
		return 0, nil
	}
	c, err := s.decodeCursor(uri, cur)
	return c.Offset, err
}

func (s *Server) paged(uri string, items []any, cur string, wrap func([]any) any) (*readResult, error) {
	off, err := s.offset(uri, cur)
	if err != nil {
		return nil, err
	}
	pg, next, err := s.page(uri, items, off)
	if err != nil {
		return nil, err
	}
	r, err := s.jsonResult(uri, netproto.MIMEYangJSON, wrap(pg), nil, mcp.Meta{}, "")
	if err != nil {
		return nil, err
	}
	if next != "" {
		r.NextCursor = next
		r.Meta = mcp.Meta{MetaNextCursor: next}
	}
	return r, nil
}

func (s *Server) readInterfaces(ctx context.Context, uri, cur string) (*readResult, error) {
	data, err := s.drv.Get(ctx, device.Operational, pathInterfaces)
	if err != nil {
		return nil, rpc(err)
	}
	items := yang.Entries(data, "openconfig-interfaces:interfaces", "interface")
	if items == nil {
		items = []any{}
	}
	return s.paged(uri, items, cur, func(pg []any) any {
		return map[string]any{"openconfig-interfaces:interfaces": map[string]any{"interface": pg}}
	})
}

func (s *Server) readRoutes(ctx context.Context, uri, cur string) (*readResult, error) {
	rib := "ipv4-master"
	if uri == netproto.URIIPv6RouteTable {
		rib = "ipv6-master"
	}
	data, err := s.drv.Get(ctx, device.Operational, pathRIBs)
	if err != nil {
		return nil, rpc(err)
	}
	var items []any
	for _, r := range yang.Entries(data, "ietf-routing:ribs", "rib") {
		if m := yang.Object(r); m != nil && m["name"] == rib {
			items = yang.Entries(m["routes"], "routes", "route")
		}
	}
	if items == nil {
		items = []any{}
	}
	return s.paged(uri, items, cur, func(pg []any) any {
		return map[string]any{"ietf-routing:routes": map[string]any{"route": pg}}
	})
}

func (s *Server) readSyslog(ctx context.Context, uri string) (*readResult, error) {
	n, err := syslogCount(uri)
	if err != nil {
		return nil, err
	}
	entries, err := s.tel.Syslog(ctx, n)
	if err != nil {
		return nil, rpc(err)
	}
	var b strings.Builder
	times := make([]string, len(entries))
	for i, e := range entries {
		b.WriteString(e.Text)
		b.WriteByte('\n')
		if !e.Time.IsZero() {
			times[i] = e.Time.UTC().Format(time.RFC3339Nano)
		}
	}
	return textResult1(uri, netproto.MIMETextUTF8, b.String(), mcp.Meta{"lines": len(entries), netproto.MetaLogTimes: times}), nil
}

// syslogCount parses {count} of network:///log/syslog/last{count}.
func syslogCount(uri string) (int, error) {
	s := strings.TrimPrefix(uri, netproto.URISyslogPrefix)
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > netproto.MaxSyslogLines || strconv.Itoa(n) != s {
		return 0, invalidParams("syslog count in %s must be an integer from 1 to %d, got %q", uri, netproto.MaxSyslogLines, s)
	}
	return n, nil
}
