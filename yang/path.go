package yang

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Path is a parsed YANG instance path. The empty Path is the root.
type Path []PathElem

// PathElem is one node of a Path: a container, leaf, list (with or without
// keys) or leaf-list.
type PathElem struct {
	// Module is the YANG module of the node; "" means the same module as the
	// parent. The first element of a parsed path always has a Module.
	Module string
	// Name is the node's local name.
	Name string
	// Keys select one list entry, in the order written. A key with an empty
	// Name comes from a RESTCONF path whose list keys are unknown.
	Keys []Key
}

// Key is one key of a list entry: the key leaf's name and its value as text.
type Key struct{ Name, Value string }

// ErrNotFound reports a well-formed path with no data in the tree.
var ErrNotFound = errors.New("yang: no data at path")

// ParsePath parses an instance path in the XPath form of the drafts
// (/openconfig-interfaces:interfaces/interface[name='Loopback100'], single
// or double quotes, several predicates, unquoted gNMI-style values) or the
// RESTCONF form (/ietf-interfaces:interfaces/interface=eth0, comma-separated
// percent-encoded key values). "/" and "" are the root. The first element
// must carry a module prefix; a prefix equal to the parent's module is
// dropped, so equal paths compare equal.
func ParsePath(s string) (Path, error) {
	p := &pathParser{src: s}
	return p.parse()
}

// MustParsePath is ParsePath for paths known to be valid; it panics on error.
func MustParsePath(s string) Path {
	p, err := ParsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}

type pathParser struct {
	src string
	pos int
}

func (p *pathParser) errorf(format string, args ...any) error {
	return fmt.Errorf("yang: path %q: %s at offset %d", p.src, fmt.Sprintf(format, args...), p.pos)
}

func (p *pathParser) parse() (Path, error) {
	if p.src == "" || p.src == "/" {
		return nil, nil
	}
	if p.src[0] == '/' {
		p.pos = 1
	}
	var path Path
	module := ""
	for {
		e, err := p.elem(path)
		if err != nil {
			return nil, err
		}
		if e.Module == "" && len(path) == 0 {
			p.pos = 0
			return nil, p.errorf("first element %q has no module prefix", e.Name)
		}
		if e.Module == module {
			e.Module = ""
		} else if e.Module != "" {
			module = e.Module
		}
		path = append(path, e)
		if p.pos == len(p.src) {
			return path, nil
		}
		if p.src[p.pos] != '/' {
			return nil, p.errorf("unexpected %q", p.src[p.pos])
		}
		p.pos++
		if p.pos == len(p.src) {
			return nil, p.errorf("trailing /")
		}
	}
}

// elem parses [prefix:]name followed by predicates or "=keys".
func (p *pathParser) elem(parent Path) (PathElem, error) {
	var e PathElem
	name, err := p.ident("node name")
	if err != nil {
		return e, err
	}
	if p.pos < len(p.src) && p.src[p.pos] == ':' {
		p.pos++
		local, err := p.ident("node name")
		if err != nil {
			return e, err
		}
		e.Module, e.Name = name, local
	} else {
		e.Name = name
	}
	if p.pos >= len(p.src) {
		return e, nil
	}
	switch p.src[p.pos] {
	case '[':
		for p.pos < len(p.src) && p.src[p.pos] == '[' {
			k, err := p.predicate()
			if err != nil {
				return e, err
			}
			for _, old := range e.Keys {
				if old.Name == k.Name {
					return e, p.errorf("key %q given twice", k.Name)
				}
			}
			e.Keys = append(e.Keys, k)
		}
	case '=':
		p.pos++
		start := p.pos
		end := strings.IndexByte(p.src[p.pos:], '/')
		if end < 0 {
			end = len(p.src)
		} else {
			end += p.pos
		}
		raw := strings.Split(p.src[start:end], ",")
		names := restconfKeys(append(parent, e), len(raw))
		for i, r := range raw {
			v, err := url.PathUnescape(r)
			if err != nil {
				p.pos = start
				return e, p.errorf("bad percent-encoding in key value %q", r)
			}
			k := Key{Value: v}
			if names != nil {
				k.Name = names[i]
			}
			e.Keys = append(e.Keys, k)
			start += len(r) + 1
		}
		if names == nil && len(raw) > 1 {
			if known := restconfKeys(append(parent, e), -1); known != nil {
				p.pos = end
				return e, p.errorf("list %s has %d key(s) (%s), got %d values", e.Name, len(known), strings.Join(known, ","), len(raw))
			}
		}
		p.pos = end
	}
	return e, nil
}

// restconfKeys names the n key values of a RESTCONF list element from the
// default schema, or returns nil when the list or the count is unknown
// (n < 0: any count).
func restconfKeys(p Path, n int) []string {
	keys := DefaultSchema().ListKeys(p)
	if keys == nil || (n >= 0 && len(keys) != n) {
		return nil
	}
	return keys
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c == '-' || c == '.' || (c >= '0' && c <= '9')
}

func (p *pathParser) ident(what string) (string, error) {
	start := p.pos
	if p.pos >= len(p.src) || !isIdentStart(p.src[p.pos]) {
		if p.pos >= len(p.src) {
			return "", p.errorf("missing %s", what)
		}
		return "", p.errorf("bad %s starting with %q", what, p.src[p.pos])
	}
	for p.pos < len(p.src) && isIdentChar(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos], nil
}

func (p *pathParser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

// predicate parses [name='value'], [name="value"], [name=value] or [.='value'].
func (p *pathParser) predicate() (Key, error) {
	open := p.pos
	// unterminated reports the predicate at its '[': its end is missing.
	unterminated := func(what string) error {
		p.pos = open
		return p.errorf("unterminated %s", what)
	}
	p.pos++ // '['
	p.skipSpace()
	var k Key
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		k.Name = "."
		p.pos++
	} else {
		if p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			return k, p.errorf("positional predicate not supported")
		}
		name, err := p.ident("key name")
		if err != nil {
			return k, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ':' { // prefixed key name: drop the prefix
			p.pos++
			if name, err = p.ident("key name"); err != nil {
				return k, err
			}
		}
		k.Name = name
	}
	p.skipSpace()
	if p.pos >= len(p.src) {
		return k, unterminated("predicate")
	}
	if p.src[p.pos] != '=' {
		return k, p.errorf("expected = in predicate")
	}
	p.pos++
	p.skipSpace()
	if p.pos >= len(p.src) {
		return k, unterminated("predicate")
	}
	switch q := p.src[p.pos]; q {
	case '\'', '"':
		p.pos++
		var b strings.Builder
		for {
			i := strings.IndexByte(p.src[p.pos:], q)
			if i < 0 {
				return k, unterminated("quoted value")
			}
			b.WriteString(p.src[p.pos : p.pos+i])
			p.pos += i + 1
			if p.pos < len(p.src) && p.src[p.pos] == q { // doubled quote = one quote (XPath 2.0)
				b.WriteByte(q)
				p.pos++
				continue
			}
			break
		}
		k.Value = b.String()
		p.skipSpace()
		if p.pos >= len(p.src) {
			return k, unterminated("predicate")
		}
		if p.src[p.pos] != ']' {
			return k, p.errorf("expected ] after quoted value")
		}
		p.pos++
	default: // unquoted (gNMI style): up to ']', backslash escapes
		var b strings.Builder
		for {
			if p.pos >= len(p.src) {
				return k, unterminated("predicate")
			}
			c := p.src[p.pos]
			if c == '\\' && p.pos+1 < len(p.src) {
				b.WriteByte(p.src[p.pos+1])
				p.pos += 2
				continue
			}
			p.pos++
			if c == ']' {
				break
			}
			b.WriteByte(c)
		}
		k.Value = strings.TrimRight(b.String(), " \t")
	}
	return k, nil
}

// String returns the canonical XPath form: the module prefix on the first
// element and wherever the module changes, keys as [k='v'] (with " when the
// value contains '). An element with unnamed keys is written in RESTCONF
// form (name=v1,v2). The root is "/".
func (p Path) String() string { return p.format(true) }

// SchemaString returns the path without keys, the form of MCP-NET error
// data.path: /openconfig-vlan:vlans/vlan/config/vlan-id.
func (p Path) SchemaString() string { return p.format(false) }

func (p Path) format(withKeys bool) string {
	if len(p) == 0 {
		return "/"
	}
	var b strings.Builder
	module := ""
	for _, e := range p {
		b.WriteByte('/')
		if e.Module != "" && e.Module != module {
			b.WriteString(e.Module)
			b.WriteByte(':')
			module = e.Module
		}
		b.WriteString(e.Name)
		if !withKeys || len(e.Keys) == 0 {
			continue
		}
		if e.Keys[0].Name == "" {
			b.WriteByte('=')
			for i, k := range e.Keys {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(escapeRestconf(k.Value))
			}
			continue
		}
		for _, k := range e.Keys {
			b.WriteByte('[')
			b.WriteString(k.Name)
			b.WriteByte('=')
			b.WriteString(quoteXPath(k.Value))
			b.WriteByte(']')
		}
	}
	return b.String()
}

func quoteXPath(v string) string {
	if !strings.Contains(v, "'") {
		return "'" + v + "'"
	}
	if !strings.Contains(v, `"`) {
		return `"` + v + `"`
	}
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}

func escapeRestconf(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if isIdentChar(c) || c == '~' || c == ':' || c == '@' || c == '!' || c == '$' || c == '*' || c == '+' || c == ';' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// Parent returns the path without its last element (the root stays the root).
func (p Path) Parent() Path {
	if len(p) == 0 {
		return nil
	}
	return p[: len(p)-1 : len(p)-1]
}

// Last returns the last element, or the zero PathElem for the root.
func (p Path) Last() PathElem {
	if len(p) == 0 {
		return PathElem{}
	}
	return p[len(p)-1]
}

// Equal reports whether p and q name the same node.
func (p Path) Equal(q Path) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		a, b := p[i], q[i]
		if a.Module != b.Module || a.Name != b.Name || len(a.Keys) != len(b.Keys) {
			return false
		}
		for j := range a.Keys {
			if a.Keys[j] != b.Keys[j] {
				return false
			}
		}
	}
	return true
}

// moduleAt returns the effective module of element i.
func (p Path) moduleAt(i int) string {
	for ; i >= 0; i-- {
		if p[i].Module != "" {
			return p[i].Module
		}
	}
	return ""
}

// withKeys returns a copy of p whose last element (a list) selects the
// entry with keys; p's backing array is never written.
func (p Path) withKeys(keys []Key) Path {
	last := len(p) - 1
	return append(p[:last:last], PathElem{Module: p[last].Module, Name: p[last].Name, Keys: keys})
}

// child returns a copy of p with e appended (never sharing p's backing array).
func (p Path) child(e PathElem) Path {
	q := make(Path, len(p), len(p)+1)
	copy(q, p)
	return append(q, e)
}
