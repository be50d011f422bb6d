package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
)

// Resource URIs of the controller's MCP server.
const (
	// DeviceResourceTemplate is the troubleshooting draft's section 3.1
	// scheme, mcp://<device>/<yang-module>:<path>: reading it returns the
	// device's YANG data (RFC 7951 JSON) at that path, read with the
	// device's network.yang.get (operational datastore). The path may use
	// RESTCONF keys (interface=eth0) or XPath predicates.
	DeviceResourceTemplate = "mcp://{device}{+path}"
	// reportsURI lists the saved reports' ids.
	reportsURI = "netmcp://reports"
	// ReportResourceTemplate is one saved report (an id, a unique prefix
	// of one, or last), as the JSON of `netmcp ask --json`.
	ReportResourceTemplate = "netmcp://reports/{id}"
	// MetaContentID is the _meta key of a read's content id (the draft's
	// "content-id", an ETag): the SHA-256 of the content. A read whose
	// request _meta carries the current content id gets no text back,
	// only the content id and MetaNotModified true.
	MetaContentID = "content-id"
	// MetaNotModified marks a read answered by content id only.
	MetaNotModified = "not-modified"
)

// addResources registers the device YANG and report resources.
func (s *Server) addResources() {
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: DeviceResourceTemplate, Name: "device-yang", MIMEType: "application/json",
		Description: "A device's YANG data, mcp://<device>/<yang-module>:<path> (troubleshooting draft 3.1), e.g. mcp://r1/openconfig-interfaces:interfaces/interface=GigabitEthernet0/0/0; _meta content-id is its ETag"},
		s.readDeviceResource)
	s.srv.AddResource(&mcp.Resource{URI: reportsURI, Name: "reports", MIMEType: "application/json",
		Description: "The ids of the saved reports, newest last"}, s.readReports)
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: ReportResourceTemplate, Name: "report", MIMEType: "application/json",
		Description: "A saved report (an id, a unique prefix of one, or last), the JSON of netmcp ask --json"}, s.readReport)
}

// ParseDeviceURI splits mcp://<device>/<module>:<path> into the device
// and the YANG path (with its leading slash).
func ParseDeviceURI(uri string) (device, path string, err error) {
	rest, ok := strings.CutPrefix(uri, "mcp://")
	if !ok {
		return "", "", fmt.Errorf("%s: not an mcp://<device>/<module>:<path> URI", uri)
	}
	device, p, ok := strings.Cut(rest, "/")
	if !ok || device == "" || p == "" {
		return "", "", fmt.Errorf("%s: want mcp://<device>/<module>:<path>", uri)
	}
	if mod, _, _ := strings.Cut(p, "/"); !strings.Contains(mod, ":") {
		return "", "", fmt.Errorf("%s: the path must start with a YANG module name (<module>:<node>)", uri)
	}
	return device, "/" + p, nil
}

func (s *Server) readDeviceResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	dev, path, err := ParseDeviceURI(uri)
	if err != nil {
		return nil, err
	}
	d := s.ctl.Fleet.Device(dev)
	if d == nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	id := s.hostIdentity(ctx)
	if err := s.authorizeDeviceRead(id, d, uri, path); err != nil {
		return nil, rpcError(err)
	}
	// ctx carries the request's correlation id (access.go). A host that
	// may not see d's secrets reads them masked (mask.go).
	var m *server.Masker
	if !s.maySeeSecrets(id, d) {
		input, _ := json.Marshal(map[string]string{"uri": uri})
		m = s.masker(ctx, d).Keeping(input)
		if err := m.SelectsBySecret(path); err != nil {
			return nil, rpcError(err)
		}
	}
	res, err := d.CallTool(ctx, netproto.ToolYangGet, map[string]any{"path": path})
	if err != nil {
		if m != nil {
			return nil, m.Error(fmt.Errorf("%s: %w", uri, err))
		}
		return nil, fmt.Errorf("%s: %w", uri, err)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	if sc == nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &sc); err != nil || sc == nil {
			return nil, fmt.Errorf("%s: %s answered no structured data", uri, dev)
		}
	}
	data, ok := sc["data"]
	if !ok {
		return nil, fmt.Errorf("%s: %s answered no data", uri, dev)
	}
	b, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	if m != nil {
		b = m.JSON(b)
	}
	return contentResult(req, uri, b), nil
}

func (s *Server) readReports(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if err := s.authorizeRead(ctx, req.Params.URI); err != nil {
		return nil, err
	}
	if s.store.Dir == "" {
		return nil, errors.New("no reports directory")
	}
	ids, err := s.visibleReports(s.hostIdentity(ctx))
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(map[string]any{"reports": ids})
	return contentResult(req, req.Params.URI, b), nil
}

func (s *Server) readReport(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if err := s.authorizeRead(ctx, req.Params.URI); err != nil {
		return nil, err
	}
	id := strings.TrimPrefix(req.Params.URI, reportsURI+"/")
	if s.store.Dir == "" || id == "" || strings.ContainsAny(id, "/\\") {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	host := s.hostIdentity(ctx)
	ids, err := s.visibleReports(host)
	if err != nil {
		return nil, err
	}
	// An id, a unique prefix of one, or last: among the reports this
	// host may read only, so that the others are neither shown nor
	// confirmed to exist.
	var match []string
	for _, x := range ids {
		if x == id {
			match = []string{x}
			break
		}
		if strings.HasPrefix(x, id) {
			match = append(match, x)
		}
	}
	if id == "last" && len(ids) > 0 {
		match = ids[len(ids)-1:]
	}
	switch {
	case len(match) == 0:
		return nil, fmt.Errorf("%s: no report %q", req.Params.URI, id)
	case len(match) > 1:
		return nil, fmt.Errorf("%s: report id %q is ambiguous: %s", req.Params.URI, id, strings.Join(match, ", "))
	}
	rep, err := s.reports.Load(match[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.Params.URI, err)
	}
	input, _ := json.Marshal(map[string]string{"uri": req.Params.URI})
	if rep, err = s.maskReport(ctx, host, rep, input); err != nil {
		return nil, err
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	return contentResult(req, req.Params.URI, b), nil
}

// visibleReports returns the ids of the saved reports host may read,
// oldest first: those every device they cite is one the host reaches
// (a host limited to a site reads no report about another).
func (s *Server) visibleReports(host policy.Identity) ([]string, error) {
	ids, err := s.reports.List()
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, id := range ids {
		rep, err := s.reports.Load(id)
		if err != nil {
			continue // unreadable: nobody's
		}
		if s.reportVisible(host, rep) {
			out = append(out, id)
		}
	}
	return out, nil
}

// reportVisible reports whether host reaches every device rep cites.
func (s *Server) reportVisible(host policy.Identity, rep *controller.Report) bool {
	for _, name := range s.reportDevices(rep) {
		if !s.reaches(host, s.ctl.Fleet.Device(name)) {
			return false
		}
	}
	return true
}

// reportDevices returns the devices of the fleet a report cites, sorted:
// those its intent names, the faulty ones, those of its causes, evidence,
// changes, calls and unreachable list, and those it says it examined.
// Names that are no device of the fleet (an address, a host the fleet
// does not serve) are left out: the controller holds no data of theirs.
func (s *Server) reportDevices(rep *controller.Report) []string {
	if s.ctl.Fleet == nil {
		return nil
	}
	names := map[string]bool{}
	add := func(ns ...string) {
		for _, n := range ns {
			if n != "" && s.ctl.Fleet.Device(n) != nil {
				names[n] = true
			}
		}
	}
	in := rep.Intent
	add(in.Source, in.Destination, in.Via, in.Device, in.Peer)
	add(rep.FaultyDevices...)
	for _, c := range rep.RootCauses {
		add(c.Devices...)
		for _, e := range c.Evidence {
			add(e.Device)
		}
		for _, ch := range c.Changes {
			add(ch.Device)
		}
	}
	for _, ch := range rep.ProposedChanges {
		add(ch.Device)
	}
	for _, c := range rep.Calls {
		add(c.Device)
	}
	for n := range rep.Unreachable {
		add(n)
	}
	if scope, ok := rep.Facts["scope"].([]any); ok {
		for _, n := range scope {
			if n, ok := n.(string); ok {
				add(n)
			}
		}
	}
	return slices.Sorted(maps.Keys(names))
}

// contentResult is a JSON read with its content id; the text is left out
// when the request already holds that content id.
func contentResult(req *mcp.ReadResourceRequest, uri string, b []byte) *mcp.ReadResourceResult {
	sum := sha256.Sum256(b)
	etag := `"sha256:` + hex.EncodeToString(sum[:16]) + `"`
	c := &mcp.ResourceContents{URI: uri, MIMEType: "application/json", Meta: mcp.Meta{MetaContentID: etag}}
	if have, _ := req.Params.GetMeta()[MetaContentID].(string); have == etag {
		c.Meta[MetaNotModified] = true
	} else {
		c.Text = string(b)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}
}
