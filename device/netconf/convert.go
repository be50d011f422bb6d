package netconf

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/openconfig/goyang/pkg/yang"
)

// xnode is one element of a parsed NETCONF reply.
type xnode struct {
	name     xml.Name // Space is the namespace URI
	parent   *xnode
	children []*xnode
	text     string
	decls    map[string]string // prefix -> namespace declared here
}

// resolvePrefix finds the namespace bound to an XML prefix in scope.
func (n *xnode) resolvePrefix(pfx string) (string, bool) {
	for x := n; x != nil; x = x.parent {
		if ns, ok := x.decls[pfx]; ok {
			return ns, true
		}
	}
	return "", false
}

// parseXML parses XML content (several top-level elements allowed) into
// a synthetic root whose children are the top-level elements.
func parseXML(data []byte) (*xnode, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	root := &xnode{}
	cur := root
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("netconf: reply is not well-formed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &xnode{name: t.Name, parent: cur}
			for _, a := range t.Attr {
				switch {
				case a.Name.Space == "xmlns":
					if n.decls == nil {
						n.decls = map[string]string{}
					}
					n.decls[a.Name.Local] = a.Value
				case a.Name.Space == "" && a.Name.Local == "xmlns":
					if n.decls == nil {
						n.decls = map[string]string{}
					}
					n.decls[""] = a.Value
				}
			}
			cur.children = append(cur.children, n)
			cur = n
		case xml.EndElement:
			cur.text = strings.TrimSpace(cur.text)
			if cur.parent != nil {
				cur = cur.parent
			}
		case xml.CharData:
			if cur != root {
				cur.text += string(t)
			}
		}
	}
	return root, nil
}

// converter turns NETCONF XML data into an RFC 7951 JSON tree.
type converter struct {
	s *schema
	// byNamespace maps namespaces to module names (hello, then schema).
	byNamespace map[string]string
	// unknown counts the elements converted without schema.
	unknown int
}

func (c *converter) module(ns string) string {
	if m, ok := c.byNamespace[ns]; ok {
		return m
	}
	if c.s != nil {
		if m, ok := c.s.byNamespace[ns]; ok {
			return m
		}
	}
	// An element in a namespace no module claims: keep it addressable.
	return ns
}

// toJSON converts the children of data (the <data> element or the
// synthetic root) into an RFC 7951 object with module-qualified members.
func (c *converter) toJSON(data *xnode) map[string]any {
	return c.object(data.children, nil, "")
}

// object converts sibling elements under schema node parent (nil: top or
// unknown) of module parentMod.
func (c *converter) object(kids []*xnode, parent *yang.Entry, parentMod string) map[string]any {
	out := make(map[string]any, len(kids))
	type group struct {
		mod, name string
		nodes     []*xnode
	}
	var order []*group
	idx := map[xml.Name]*group{}
	for _, k := range kids {
		g := idx[k.name]
		if g == nil {
			g = &group{mod: c.module(k.name.Space), name: k.name.Local}
			idx[k.name] = g
			order = append(order, g)
		}
		g.nodes = append(g.nodes, k)
	}
	for _, g := range order {
		member := g.name
		if g.mod != parentMod {
			member = g.mod + ":" + g.name
		}
		var e *yang.Entry
		switch {
		case parent == nil && parentMod == "":
			e = c.s.topEntry(g.mod, g.name)
		case parent != nil:
			e = dataChild(parent, g.name)
		}
		out[member] = c.value(g.nodes, e, g.mod)
	}
	return out
}

// value converts the same-named siblings nodes with schema e (nil:
// unknown) of module mod.
func (c *converter) value(nodes []*xnode, e *yang.Entry, mod string) any {
	switch {
	case e == nil:
		c.unknown++
		if len(nodes) > 1 {
			l := make([]any, len(nodes))
			for i, n := range nodes {
				l[i] = c.guess(n, mod)
			}
			return l
		}
		return c.guess(nodes[0], mod)
	case e.IsList():
		l := make([]any, len(nodes))
		for i, n := range nodes {
			l[i] = c.object(n.children, e, mod)
		}
		return l
	case e.IsLeafList():
		l := make([]any, len(nodes))
		for i, n := range nodes {
			l[i] = c.leaf(n, leafType(e))
		}
		return l
	case e.IsLeaf():
		return c.leaf(nodes[len(nodes)-1], leafType(e))
	case e.IsDir():
		return c.object(nodes[len(nodes)-1].children, e, mod)
	}
	// anydata, anyxml
	return c.guess(nodes[len(nodes)-1], mod)
}

// guess converts an element without schema: elements with children
// become objects (repeated names become arrays), text becomes a string.
func (c *converter) guess(n *xnode, mod string) any {
	if len(n.children) == 0 {
		return n.text
	}
	return c.object(n.children, nil, mod)
}

// leaf converts a leaf's text by its YANG type (RFC 7951 section 6).
func (c *converter) leaf(n *xnode, t *yang.YangType) any {
	if t == nil {
		return n.text
	}
	if v, ok := c.typed(n, t); ok {
		return v
	}
	return n.text
}

func (c *converter) typed(n *xnode, t *yang.YangType) (any, bool) {
	s := n.text
	switch t.Kind {
	case yang.Yint8, yang.Yint16, yang.Yint32:
		if i, err := strconv.ParseInt(s, 10, 32); err == nil {
			return float64(i), true
		}
	case yang.Yuint8, yang.Yuint16, yang.Yuint32:
		if i, err := strconv.ParseUint(s, 10, 32); err == nil {
			return float64(i), true
		}
	case yang.Yint64:
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return s, true
		}
	case yang.Yuint64:
		if _, err := strconv.ParseUint(s, 10, 64); err == nil {
			return s, true
		}
	case yang.Ydecimal64:
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return s, true
		}
	case yang.Ybool:
		switch s {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	case yang.Yempty:
		if s == "" {
			return []any{nil}, true
		}
	case yang.Yidentityref:
		if pfx, local, ok := strings.Cut(s, ":"); ok {
			if ns, ok := n.resolvePrefix(pfx); ok {
				return c.module(ns) + ":" + local, true
			}
			return s, true
		}
		if ns, ok := n.resolvePrefix(""); ok {
			return c.module(ns) + ":" + s, true
		}
	case yang.Yenum:
		if t.Enum == nil || t.Enum.IsDefined(s) {
			return s, true
		}
	case yang.Yunion:
		for _, m := range t.Type {
			if v, ok := c.typed(n, m); ok {
				return v, true
			}
		}
	case yang.Yleafref:
		return s, true
	default: // string, binary, bits, instance-identifier
		return s, true
	}
	return nil, false
}
