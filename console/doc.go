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
// With an Engine (the controller's, wired by the command), the console
// also asks: an intent posted from the ask box runs in the background,
// its plan and calls streamed to the run's page (server-sent events);
// the report's page shows the diagnosis, the evidence, the faulty
// devices and links highlighted on the map and the proposed fix as a
// diff. "Apply" queues the fix for approval; an operator's approval runs
// it through the engine (confirmed commit, verification, confirm or roll
// back), and the devices' approval questions for it are answered in the
// approver's name (Console.Elicit). Every ask, request and decision is
// recorded in the audit log with the session's user; the audit page
// searches the logs it is given and shows each hash chain's status.
//
// Security: a page is served only to a session, made by exchanging a
// one-time login token (LoginURL, printed by whoever starts the console,
// an operator's; AddLogin makes others, a viewer's) for an HttpOnly,
// SameSite=Strict cookie. With Options.Policy the policy's identities log
// in too: a client certificate (HTTPS, Options.TLS) opens a session bound
// to it, a bearer token is its identity on each request; an identity the
// policy lets commit somewhere is an operator, and decides only changes
// of devices where it may commit (and, with the policy's four-eyes, not
// its own). A session has a user and a role: a viewer sees
// everything and every change it posts is refused (403). Devices' own
// approval questions about a host's write wait in the queue (Gate), and
// the devices' pending confirmed commits are counted down live, with
// confirm-now and roll-back-now. Every state-changing request
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
