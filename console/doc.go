// Package console is netmcp's web console: an http.Handler that shows a
// fleet of MCP devices as a map, live, and a page per device.
//
// The map is server-rendered SVG (html/template), laid out by a
// deterministic force-directed placement, with one node per device and
// one line per link. Links come from a lab's topology when one is given,
// otherwise from the devices' LLDP neighbours (openconfig-lldp read with
// network.yang.get). A poller reads every device's interfaces through the
// fleet client (one supervised MCP session per device) at a short interval,
// and their OSPF and BGP state less often; each change is pushed to open
// pages as server-sent events (GET /events), which recolour the map
// without a reload: a link whose end is down is red, an adjacency or
// session that is not up is orange, a device that cannot be reached is
// drawn red.
//
// Security: a page is served only to a session, made by exchanging the
// one-time login token (LoginURL, printed by whoever starts the console)
// for an HttpOnly, SameSite=Strict cookie. Every state-changing request
// carries the session's CSRF token. Every response has a strict
// Content-Security-Policy: scripts only from the console's own files, no
// inline script or style. Unless Options.AllowRemote is set, requests from
// anywhere but loopback, or naming a non-loopback host (DNS rebinding),
// are refused. The console shows only what the devices return through
// MCP, with their masking applied; it has no raw configuration view.
//
// Assets are embedded (go:embed); the page needs no network connection
// and no JavaScript build step.
package console
