package console

import (
	"html"
	"html/template"
	"net/url"
	"strconv"
	"strings"
)

// SVG is the map's drawing: every link, with the states of its ends,
// every device, and on a small map the interface names at the link ends.
// It is written directly rather than through html/template, which took
// most of a second for a thousand devices; every text it writes is
// escaped.
func (p mapPage) SVG() template.HTML {
	g := p.G
	var b strings.Builder
	b.Grow(256 + 420*len(g.Edges) + 330*len(g.Nodes))
	esc := html.EscapeString
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" class="map" viewBox="0 0 `)
	b.WriteString(num(g.Width) + " " + num(g.Height))
	b.WriteString(`" role="group" aria-label="` + strconv.Itoa(len(g.Nodes)) + " devices, " + strconv.Itoa(len(g.Edges)) + ` links">` + "\n")
	b.WriteString(`<g class="links">`)
	for _, e := range g.Edges {
		v := p.V.Links[e.ID]
		id := esc(e.ID)
		b.WriteString("\n" + `<g class="link s-` + esc(v.S))
		if p.FaultLinks[e.ID] {
			b.WriteString(" fault")
		}
		b.WriteString(`" id="link-` + id + `" data-link="` + id + `" data-a="` + esc(e.A+":"+e.AIf) + `" data-b="` + esc(e.B+":"+e.BIf) + `"><title>`)
		b.WriteString(esc(e.A + " " + e.AIf + " to " + e.B + " " + e.BIf + ": " + v.S))
		if v.Note != "" {
			b.WriteString(" (" + esc(v.Note) + ")")
		}
		d := e.Path()
		b.WriteString(`</title><path class="hit" d="` + d + `"/><path class="wire" d="` + d + `"/>`)
		b.WriteString(`<circle class="end end-a s-` + esc(v.A) + `" cx="` + num(e.EAX) + `" cy="` + num(e.EAY) + `" r="5"/>`)
		b.WriteString(`<circle class="end end-b s-` + esc(v.B) + `" cx="` + num(e.EBX) + `" cy="` + num(e.EBY) + `" r="5"/></g>`)
	}
	b.WriteString("\n</g>\n")
	if g.Labels {
		b.WriteString(`<g class="iflabels" aria-hidden="true">`)
		for _, e := range g.Edges {
			b.WriteString("\n" + `<text x="` + num(e.LAX) + `" y="` + num(e.LAY) + `" dy="4">` + esc(shortIf(e.AIf)) + `</text>`)
			b.WriteString(`<text x="` + num(e.LBX) + `" y="` + num(e.LBY) + `" dy="4">` + esc(shortIf(e.BIf)) + `</text>`)
		}
		b.WriteString("\n</g>")
	}
	b.WriteString("\n" + `<g class="nodes">`)
	for _, n := range g.Nodes {
		v := p.V.Nodes[n.Name]
		name, kind := esc(n.Name), esc(n.Kind)
		x, y := num(n.X), num(n.Y)
		fault := p.FaultNodes[n.Name]
		b.WriteString("\n" + `<a href="/device/` + esc(url.PathEscape(n.Name)) + `" class="node k-` + kind + ` s-` + esc(v.S))
		if fault {
			b.WriteString(" fault")
		}
		b.WriteString(`" id="node-` + name + `" data-node="` + name + `" aria-label="` + name + ", " + kind + ", " + esc(v.S))
		if fault {
			b.WriteString(", found faulty")
		}
		b.WriteString(`"><title>` + name + " (" + kind + "): " + esc(v.S))
		if v.Note != "" {
			b.WriteString(" (" + esc(v.Note) + ")")
		}
		b.WriteString("</title>")
		switch n.Kind {
		case "host":
			b.WriteString(`<rect class="shape" x="` + x + `" y="` + y + `" width="28" height="22" rx="4" transform="translate(-14 -11)"/>`)
		case "switch":
			b.WriteString(`<rect class="shape" x="` + x + `" y="` + y + `" width="34" height="24" rx="2" transform="translate(-17 -12)"/>`)
		default:
			b.WriteString(`<circle class="shape" cx="` + x + `" cy="` + y + `" r="17"/>`)
		}
		b.WriteString(`<text class="name" x="` + x + `" y="` + y + `" dy="34">` + name + `</text></a>`)
	}
	b.WriteString("\n</g>\n</svg>")
	return template.HTML(b.String())
}
