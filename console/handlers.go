package console

import (
	"context"
	"encoding/json"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/yang"
)

var funcs = template.FuncMap{
	"join":      strings.Join,
	"lower":     strings.ToLower,
	"diffLines": diffLines,
}

// diffLine is a line of a unified diff with its class (add, del, hdr).
type diffLine struct{ Class, Text string }

// diffLines splits a diff into classed lines.
func diffLines(d string) []diffLine {
	var out []diffLine
	for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		cls := ""
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"):
			cls = "hdr"
		case strings.HasPrefix(l, "+"):
			cls = "add"
		case strings.HasPrefix(l, "-"):
			cls = "del"
		}
		out = append(out, diffLine{cls, l})
	}
	return out
}

// Handler serves the console: the map (/), a device's page
// (/device/NAME) and its syslog stream (/device/NAME/events), the state
// stream (/events), the login exchange
// (/login) and the embedded assets (/static/); with an Engine, the ask
// box (POST /ask), a run's page and stream (/runs/ID, /runs/ID/events),
// the saved reports (/reports, /report/ID) with the agents' signed
// reports (/d2d/ID), a fix's request
// (POST /report/ID/apply) and the approvals queue (/approvals, POST
// /approvals/ID/approve|decline); with audit logs, their search (/audit).
func (c *Console) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /static/", c.static)
	mux.HandleFunc("GET /login", c.serveLogin)
	mux.Handle("GET /{$}", c.authed(c.serveMap))
	mux.Handle("GET /map.svg", c.authed(c.serveMapFragment))
	mux.Handle("GET /events", c.authed(c.serveEvents))
	mux.Handle("GET /api/state", c.authed(c.serveState))
	mux.Handle("GET /device/{name}", c.authed(c.serveDevice))
	mux.Handle("GET /device/{name}/events", c.authed(c.serveDeviceEvents))
	mux.Handle("POST /logout", c.authed(c.serveLogout))
	mux.Handle("POST /ask", c.authed(c.withEngine(c.operatorOnly(c.serveAsk))))
	mux.Handle("GET /runs/{id}", c.authed(c.withEngine(c.serveRun)))
	mux.Handle("GET /runs/{id}/events", c.authed(c.withEngine(c.serveRunEvents)))
	mux.Handle("GET /reports", c.authed(c.withEngine(c.serveReports)))
	mux.Handle("GET /report/{id}", c.authed(c.withEngine(c.serveReport)))
	mux.Handle("GET /d2d/{id}", c.authed(c.serveD2D))
	mux.Handle("POST /report/{id}/apply", c.authed(c.withEngine(c.operatorOnly(c.serveApply))))
	mux.Handle("GET /approvals", c.authed(c.withEngine(c.serveApprovals)))
	mux.Handle("POST /approvals/{id}/{decision}", c.authed(c.withEngine(c.operatorOnly(c.serveDecide))))
	mux.Handle("GET /audit", c.authed(c.serveAudit))
	c.routeGates(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w)
		if !c.opts.AllowRemote && !loopbackOnly(r) {
			http.Error(w, "the console answers on loopback only", http.StatusForbidden)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// sessionKey is where authed puts the request's session.
type sessionKey struct{}

// authed serves h to a logged-in session only, and a state-changing
// request only with the session's CSRF token.
func (c *Console) authed(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, why := c.identify(w, r)
		if why != "" {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, why, http.StatusUnauthorized)
			return
		}
		if s == nil {
			if r.Method == http.MethodGet && !strings.HasSuffix(r.URL.Path, "/events") && !strings.HasPrefix(r.URL.Path, "/api/") && r.URL.Path != "/map.svg" {
				c.render(w, http.StatusUnauthorized, "login.html", nil)
				return
			}
			http.Error(w, "not logged in", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !s.header && !validCSRF(r, s) {
			c.log.Warn("console: request refused: no valid CSRF token", "method", r.Method, "path", r.URL.Path)
			http.Error(w, "missing or wrong CSRF token", http.StatusForbidden)
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, s)))
	})
}

func csrfOf(r *http.Request) string {
	if s, ok := r.Context().Value(sessionKey{}).(*session); ok {
		return s.csrf
	}
	return ""
}

func (c *Console) render(w http.ResponseWriter, code int, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	if err := c.tmpl.ExecuteTemplate(w, name, data); err != nil {
		c.log.Error("console: render", "template", name, "err", err)
	}
}

func (c *Console) serveLogin(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Has("token") && !loopbackOnly(r) {
		http.Error(w, "one-time login links work on loopback only: log in with a client certificate or a bearer token", http.StatusForbidden)
		return
	}
	id, ok := c.auth.exchange(r.URL.Query().Get("token"))
	if !ok {
		if s, _ := c.identify(w, r); s != nil {
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		c.render(w, http.StatusForbidden, "login.html", map[string]any{"Failed": r.URL.Query().Has("token")})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: int(c.opts.SessionTTL / time.Second)})
	c.log.Info("console: logged in", "remote", r.RemoteAddr)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (c *Console) serveLogout(w http.ResponseWriter, r *http.Request) {
	c.auth.end(r)
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// mapPage is the data of the map's templates.
type mapPage struct {
	page
	G *graph
	V view
	// FaultNodes and FaultLinks are highlighted (a report's findings).
	FaultNodes, FaultLinks map[string]bool
}

func (c *Console) mapData(r *http.Request) mapPage {
	c.mu.RLock()
	defer c.mu.RUnlock()
	title := "netmcp"
	if c.opts.Inventory != nil && c.opts.Inventory.Name != "" {
		title = c.opts.Inventory.Name
	} else if c.opts.Topology != nil && c.opts.Topology.Name != "" {
		title = c.opts.Topology.Name
	}
	return mapPage{page: c.basePage(r, title), G: c.graph, V: c.view.clone()}
}

func (c *Console) serveMap(w http.ResponseWriter, r *http.Request) {
	c.render(w, http.StatusOK, "map.html", c.mapData(r))
}

func (c *Console) serveMapFragment(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "image/svg+xml")
	if err := c.tmpl.ExecuteTemplate(w, "svg", c.mapData(r)); err != nil {
		c.log.Error("console: render map", "err", err)
	}
}

func (c *Console) serveState(w http.ResponseWriter, r *http.Request) {
	c.mu.RLock()
	msg := stateMsg{V: c.ver, view: c.view.clone()}
	c.mu.RUnlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(msg)
}

// devicePage is the data of a device's page.
type devicePage struct {
	page
	Name       string
	Managed    bool
	State      nodeView
	Err        string
	Ifaces     []iface
	Neighbours []linkSpec
	Routes     []routeRow
	RoutesErr  string
	Syslog     []string
	SyslogErr  string
	BGPDown    []string
	// History are the newest commits of the configuration, with their
	// diffs, of HistoryTotal.
	History      []commitRow
	HistoryTotal int
	HistoryErr   string
}

// routeRow is one route of a device's IPv4 RIB.
type routeRow struct{ Prefix, Protocol, NextHop, Interface string }

func (c *Console) serveDevice(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	c.mu.RLock()
	_, known := c.graph.index[name]
	st := c.states[name]
	p := devicePage{page: c.basePage(r, name), Name: name, State: c.view.Nodes[name]}
	if known {
		p.Managed = c.graph.Nodes[c.graph.index[name]].Managed
	}
	c.mu.RUnlock()
	if !known {
		http.NotFound(w, r)
		return
	}
	if st != nil {
		p.Err, p.Ifaces, p.BGPDown = st.Err, st.Ifaces, st.BGPDown
	}
	if d := c.fleetDevice(name); d != nil {
		var err error
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if data, err := yangGet(ctx, d, pathLLDP); err == nil {
			p.Neighbours = parseLLDP(name, data)
		}
		if data, err := yangGet(ctx, d, pathRouting); err == nil {
			p.Routes = parseRoutes(data)
		} else {
			p.RoutesErr = shortErr(err)
		}
		if p.Syslog, err = readSyslog(ctx, d); err != nil {
			p.SyslogErr = shortErr(err)
		}
		if p.History, p.HistoryTotal, err = readHistory(ctx, d); err != nil {
			p.HistoryErr = shortErr(err)
		}
	}
	c.render(w, http.StatusOK, "device.html", p)
}

// fleetDevice is the fleet's device called name, nil when not in the fleet.
func (c *Console) fleetDevice(name string) *client.Device {
	if c.fleet == nil {
		return nil
	}
	return c.fleet.Device(name)
}

// parseRoutes reads the IPv4 RIB of a get of pathRouting.
func parseRoutes(data any) []routeRow {
	var out []routeRow
	for _, rib := range yang.List(yang.Member(data, "ribs", "rib")) {
		if yang.Text(yang.Member(rib, "name")) != "ipv4-master" {
			continue
		}
		for _, rt := range yang.List(yang.Member(rib, "routes", "route")) {
			out = append(out, routeRow{Prefix: yang.Text(yang.Member(rt, "destination-prefix")), Protocol: yang.Identity(yang.Member(rt, "source-protocol")),
				NextHop: yang.Text(yang.Member(rt, "next-hop", "next-hop-address")), Interface: yang.Text(yang.Member(rt, "next-hop", "outgoing-interface"))})
		}
	}
	return out
}
