package yang

import (
	"sort"
	"strings"
	"sync"
)

// Schema is a tree of YANG schema nodes (containers, lists with their keys,
// leaves with their types, leaf-lists) for a set of modules. It is built in
// Go (see DefaultSchema) and is read-only once built, so it is safe for
// concurrent use.
type Schema struct {
	root    *node
	modules []string
}

type nodeKind int

const (
	kindContainer nodeKind = iota
	kindList
	kindLeaf
	kindLeafList
)

func (k nodeKind) String() string {
	return [...]string{"container", "list", "leaf", "leaf-list"}[k]
}

// node is one schema node.
type node struct {
	kind      nodeKind
	name      string
	module    string // effective module, set by NewSchema
	children  []*node
	keys      []string
	typ       *leafType
	mandatory bool
	ref       refKind  // leafref check done by Validate
	aliases   []string // other member names accepted for this node
	limit     string   // platform limit: name of the thing ("VLAN"); see platformLimit
	limitPath string   // path reported for a platform limit violation
}

// refKind names what a leafref leaf must point at.
type refKind int

const (
	refNone      refKind = iota
	refInterface         // an openconfig interface name
	refVLAN              // a VLAN id configured in openconfig-vlan (when numeric)
)

// option configures a node under construction: a child node, the keys of a
// list, or a flag.
type option interface{ apply(*node) }

func (n *node) apply(parent *node) { parent.children = append(parent.children, n) }

type optFunc func(*node)

func (f optFunc) apply(n *node) { f(n) }

// keys sets the key leaves of a list.
func keys(names ...string) option { return optFunc(func(n *node) { n.keys = names }) }

// mandatory marks a leaf as mandatory.
func mandatory() option { return optFunc(func(n *node) { n.mandatory = true }) }

// ref marks a leaf as a leafref checked by Validate.
func ref(k refKind) option { return optFunc(func(n *node) { n.ref = k }) }

// platformLimit makes a range violation of the leaf a platform limit
// (CodeConfigIncompatible, "VLAN 4095 > maximum 4094") reported at path,
// as MCP-NET section 7.2 shows, instead of a YANG syntax error.
func platformLimit(what, path string) option {
	return optFunc(func(n *node) { n.limit, n.limitPath = what, path })
}

// alias accepts another member name for the node (e.g. openconfig-if-ip:ipv4).
func alias(names ...string) option {
	return optFunc(func(n *node) { n.aliases = append(n.aliases, names...) })
}

func build(n *node, opts []option) *node {
	for _, o := range opts {
		if o != nil {
			o.apply(n)
		}
	}
	return n
}

func container(name string, opts ...option) *node {
	return build(&node{kind: kindContainer, name: name}, opts)
}

func list(name string, opts ...option) *node {
	return build(&node{kind: kindList, name: name}, opts)
}

func leaf(name string, t *leafType, opts ...option) *node {
	return build(&node{kind: kindLeaf, name: name, typ: t}, opts)
}

func leafList(name string, t *leafType, opts ...option) *node {
	return build(&node{kind: kindLeafList, name: name, typ: t}, opts)
}

// in puts n in another module than its parent (an augment, or a top-level
// node): its member name is module-qualified.
func in(module string, n *node) *node { n.module = module; return n }

// newSchema builds a Schema from top-level nodes, each placed with in().
func newSchema(top ...*node) *Schema {
	root := &node{kind: kindContainer}
	mods := map[string]bool{}
	var walk func(n *node, mod string)
	walk = func(n *node, mod string) {
		if n.module == "" {
			n.module = mod
		}
		mods[n.module] = true
		for _, c := range n.children {
			walk(c, n.module)
		}
	}
	for _, t := range top {
		walk(t, t.module)
		root.children = append(root.children, t)
	}
	s := &Schema{root: root}
	for m := range mods {
		s.modules = append(s.modules, m)
	}
	sort.Strings(s.modules)
	return s
}

var (
	defaultOnce   sync.Once
	defaultSchema *Schema
)

// DefaultSchema returns the schema of the configuration modules of
// docs/datamodel.md. It is built once and shared.
func DefaultSchema() *Schema {
	defaultOnce.Do(func() { defaultSchema = buildDefaultSchema() })
	return defaultSchema
}

// Modules returns the names of the modules in the schema, sorted.
func (s *Schema) Modules() []string {
	return append([]string(nil), s.modules...)
}

// memberName returns the JSON member name of n below a node of parentModule.
func (n *node) memberName(parentModule string) string {
	if n.module == parentModule || (parentModule != "" && unqualifiedAugments[n.module]) {
		return n.name
	}
	return n.module + ":" + n.name
}

// child finds the child of n named by e (n's module is the parent module).
func (n *node) child(e PathElem) *node {
	for _, c := range n.children {
		if c.name != e.Name {
			continue
		}
		if e.Module == "" || e.Module == c.module || e.Module == n.module && unqualifiedAugments[c.module] {
			return c
		}
		for _, a := range c.aliases {
			if a == e.Module+":"+e.Name {
				return c
			}
		}
	}
	if e.Module != "" { // an alias spelled with a module that matches n's
		for _, c := range n.children {
			for _, a := range c.aliases {
				if a == e.Module+":"+e.Name {
					return c
				}
			}
		}
	}
	return nil
}

// childMember finds the child of n for JSON member name k.
func (n *node) childMember(k string) *node {
	for _, c := range n.children {
		if c.memberName(n.module) == k {
			return c
		}
		for _, a := range c.aliases {
			if a == k {
				return c
			}
		}
	}
	// A redundantly qualified member (same module as the parent) is accepted.
	if i := strings.IndexByte(k, ':'); i >= 0 && k[:i] == n.module {
		for _, c := range n.children {
			if c.name == k[i+1:] && c.module == n.module {
				return c
			}
		}
	}
	return nil
}

// find returns the schema node p names, or nil.
func (s *Schema) find(p Path) *node {
	if s == nil {
		return nil
	}
	n := s.root
	for i, e := range p {
		if i == 0 && e.Module == "" {
			return nil
		}
		n = n.child(e)
		if n == nil {
			return nil
		}
	}
	return n
}

// ListKeys returns the key names of the list p names (keys in p are
// ignored), or nil if p does not name a list of the schema.
func (s *Schema) ListKeys(p Path) []string {
	n := s.find(p)
	if n == nil || n.kind != kindList {
		return nil
	}
	return append([]string(nil), n.keys...)
}

// Check returns nil when p names a node of the schema, else a
// *netproto.Error with CodeConfigIncompatible whose path is p's schema form.
func (s *Schema) Check(p Path) error {
	if len(p) == 0 || s.find(p) != nil {
		return nil
	}
	return unsupported(p)
}

// hasLeaf reports whether the list at p has a leaf at the relative names.
func (s *Schema) hasLeaf(p Path, names ...string) bool {
	n := s.find(p)
	for _, name := range names {
		if n == nil {
			return false
		}
		n = n.child(PathElem{Name: name})
	}
	return n != nil && n.kind == kindLeaf
}

// keyIsNumber reports whether key leaf name of the list at p is a JSON
// number (an integer type of at most 32 bits); ok is false when the schema
// does not know the leaf.
func (s *Schema) keyIsNumber(p Path, name string) (numeric, ok bool) {
	n := s.find(p)
	if n == nil {
		return false, false
	}
	k := n.child(PathElem{Name: name})
	if k == nil || k.typ == nil {
		return false, false
	}
	return k.typ.isJSONNumber(), true
}
