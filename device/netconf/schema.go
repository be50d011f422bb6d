package netconf

import (
	"context"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"

	"github.com/openconfig/goyang/pkg/yang"
)

const nsMonitoring = "urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring"

// schema is the YANG of the device's modules, fetched with <get-schema>
// and compiled by goyang. It drives the XML to RFC 7951 conversion (leaf
// types, lists and their keys) and the order of list keys in edits.
type schema struct {
	// top maps module name to its compiled module entry.
	top map[string]*yang.Entry
	// prefixes maps a YANG prefix to its module name.
	prefixes map[string]string
	// byNamespace maps a namespace to its module name (from the YANG
	// sources; completes the hello's list).
	byNamespace map[string]string
	// namespaces maps a module name to its namespace.
	namespaces map[string]string
	// problems lists the modules that could not be fetched or compiled:
	// their data is converted without schema (see convert.go).
	problems []string
}

// fetcher returns a module's YANG source by name and revision.
type fetcher func(ctx context.Context, name, revision string) (string, error)

// getSchemaOp is the <get-schema> RPC (RFC 6022) for a module.
func getSchemaOp(name, revision string) string {
	var b strings.Builder
	b.WriteString(`<get-schema xmlns="` + nsMonitoring + `"><identifier>`)
	xml.EscapeText(&b, []byte(name))
	b.WriteString(`</identifier>`)
	if revision != "" {
		b.WriteString(`<version>`)
		xml.EscapeText(&b, []byte(revision))
		b.WriteString(`</version>`)
	}
	b.WriteString(`<format>yang</format></get-schema>`)
	return b.String()
}

// schemaText extracts the YANG text of a <get-schema> reply body.
func schemaText(body []byte) (string, error) {
	var r struct {
		Data string `xml:"data"`
	}
	if err := xml.Unmarshal(append(append([]byte("<r>"), body...), "</r>"...), &r); err != nil {
		return "", fmt.Errorf("get-schema reply: %v", err)
	}
	if strings.TrimSpace(r.Data) == "" {
		return "", fmt.Errorf("get-schema reply has no YANG text")
	}
	return r.Data, nil
}

// loadSchema fetches every module the hello advertises, with the modules
// and submodules they import or include, and compiles them together (so
// augmentations such as ietf-ip's land in ietf-interfaces). A module that
// cannot be fetched or compiled is recorded in problems, not fatal.
func loadSchema(ctx context.Context, h *helloInfo, fetch fetcher) (*schema, error) {
	ms := yang.NewModules()
	s := &schema{top: map[string]*yang.Entry{}, prefixes: map[string]string{}, byNamespace: map[string]string{}, namespaces: map[string]string{}}
	seen := map[string]bool{}
	type want struct{ name, rev string }
	var queue []want
	names := make([]string, 0, len(h.Modules))
	for n := range h.Modules {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		queue = append(queue, want{n, h.Modules[n].Revision})
	}
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		if seen[w.name] {
			continue
		}
		seen[w.name] = true
		text, err := fetch(ctx, w.name, w.rev)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			s.problems = append(s.problems, fmt.Sprintf("%s: get-schema: %v", w.name, err))
			continue
		}
		if err := ms.Parse(text, w.name+".yang"); err != nil {
			s.problems = append(s.problems, fmt.Sprintf("%s: %v", w.name, err))
			continue
		}
		m := ms.Modules[w.name]
		if m == nil {
			m = ms.SubModules[w.name]
		}
		if m == nil {
			continue
		}
		for _, imp := range m.Import {
			queue = append(queue, want{imp.Name, ""})
		}
		for _, inc := range m.Include {
			queue = append(queue, want{inc.Name, ""})
		}
	}
	if errs := ms.Process(); len(errs) > 0 {
		for _, e := range errs {
			s.problems = append(s.problems, e.Error())
		}
	}
	for name, m := range ms.Modules {
		if strings.Contains(name, "@") {
			continue
		}
		e := safeToEntry(m)
		if e == nil {
			s.problems = append(s.problems, name+": cannot build its schema tree")
			continue
		}
		s.top[name] = e
		if m.Prefix != nil {
			s.prefixes[m.Prefix.Name] = name
		}
		if m.Namespace != nil {
			s.byNamespace[m.Namespace.Name] = name
			s.namespaces[name] = m.Namespace.Name
		}
	}
	return s, nil
}

// safeToEntry is yang.ToEntry, which panics on some malformed input.
func safeToEntry(m *yang.Module) (e *yang.Entry) {
	defer func() {
		if recover() != nil {
			e = nil
		}
	}()
	return yang.ToEntry(m)
}

// topEntry returns the top-level data node name of module mod.
func (s *schema) topEntry(mod, name string) *yang.Entry {
	if s == nil {
		return nil
	}
	m := s.top[mod]
	if m == nil {
		return nil
	}
	return dataChild(m, name)
}

// dataChild finds the data node name under e, looking through choice and
// case nodes (which have no instance).
func dataChild(e *yang.Entry, name string) *yang.Entry {
	if e == nil || e.Dir == nil {
		return nil
	}
	if c, ok := e.Dir[name]; ok && !c.IsChoice() && !c.IsCase() {
		return c
	}
	for _, c := range e.Dir {
		if c.IsChoice() || c.IsCase() {
			if f := dataChild(c, name); f != nil {
				return f
			}
		}
	}
	return nil
}

// listKeys returns the key leaf names of list entry e, in order.
func listKeys(e *yang.Entry) []string {
	if e == nil || e.Key == "" {
		return nil
	}
	return strings.Fields(e.Key)
}

// leafType returns the type of leaf e with leafrefs followed to their
// target (depth-limited), or nil.
func leafType(e *yang.Entry) *yang.YangType {
	t := e.Type
	for i := 0; t != nil && t.Kind == yang.Yleafref && i < 8; i++ {
		target := findLeafref(e, t.Path)
		if target == nil || target.Type == nil {
			return t
		}
		e, t = target, target.Type
	}
	return t
}

// findLeafref resolves a leafref path (predicates dropped) from e.
func findLeafref(e *yang.Entry, p string) (found *yang.Entry) {
	defer func() {
		if recover() != nil {
			found = nil
		}
	}()
	var b strings.Builder
	depth := 0
	for _, r := range p {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0 && r != ' ' && r != '\n' && r != '\t':
			b.WriteRune(r)
		}
	}
	return e.Find(b.String())
}
