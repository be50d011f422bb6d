package sshcli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/clitree"
	"github.com/netmcp/netmcp/device/ocview"
	"github.com/netmcp/netmcp/netproto"
)

// ocView is the openconfig-interfaces view of an ietf-interfaces tree: an
// empty container when it has no interface.
func ocView(ietf map[string]any) map[string]any {
	if v := ocview.FromIETF(ietf); v != nil {
		return v
	}
	return map[string]any{}
}

// withView adds to a configuration tree (running, or a candidate) the
// openconfig-interfaces view of its interface blocks: the configuration's
// "interface NAME" blocks, then the candidate's pending lines as the CLI
// would take them in configuration mode. Junos prints its configuration in
// braces, which is not read: its trees keep the lines only.
func (drv *Driver) withView(tree map[string]any) map[string]any {
	if drv.d.name == DialectJunos {
		return tree
	}
	out := maps.Clone(tree)
	ifs := configInterfaces(drv.d, linesOf(tree, memConfig), linesOf(tree, memPending))
	out[ocview.Member] = ocView(map[string]any{ocview.IETFMember: map[string]any{"interface": ifs}})
	return out
}

// configInterfaces reads interface names, descriptions and shutdowns from
// a printed configuration (top-level "interface NAME" lines and the lines
// indented under them) and then from pending lines as entered in
// configuration mode ("interface NAME" enters its context, "exit" or
// "quit" leaves it), as ietf-interfaces list entries in order of first
// appearance.
func configInterfaces(d *dialect, config, pending []string) []any {
	byName := map[string]map[string]any{}
	var order []string
	entry := func(name string) map[string]any {
		e := byName[name]
		if e == nil {
			e = map[string]any{"name": name, "type": ifType(name)}
			byName[name] = e
			order = append(order, name)
		}
		return e
	}
	for _, n := range clitree.Parse(config) {
		if name, ok := interfaceLine(n.Line); ok {
			e := entry(name)
			for _, k := range n.Kids {
				applyIfLine(d, e, k.Line)
			}
		}
	}
	var cur map[string]any
	for _, l := range pending {
		l = strings.TrimSpace(l)
		if name, ok := interfaceLine(l); ok {
			cur = entry(name)
			continue
		}
		if l == "exit" || l == "quit" {
			cur = nil
			continue
		}
		if cur != nil {
			applyIfLine(d, cur, l)
		}
	}
	list := make([]any, 0, len(order))
	for _, n := range order {
		list = append(list, byName[n])
	}
	return list
}

// interfaceLine reports whether line opens an interface's context, and
// which interface.
func interfaceLine(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "interface ")
	if !ok {
		return "", false
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return "", false
	}
	return f[0], true
}

// applyIfLine applies one line of an interface's context to its entry:
// description and shutdown, set or negated; other lines are not viewed.
func applyIfLine(d *dialect, e map[string]any, line string) {
	neg := "no "
	if d.name == DialectVRP {
		neg = "undo "
	}
	negated := strings.HasPrefix(line, neg)
	line = strings.TrimPrefix(line, neg)
	switch {
	case line == "shutdown":
		e["enabled"] = negated
	case line == "description" || strings.HasPrefix(line, "description "):
		if negated {
			delete(e, "description")
		} else if v := strings.TrimSpace(strings.TrimPrefix(line, "description")); v != "" {
			e["description"] = v
		}
	}
}

// Edit adds the CLI lines of YANG edits to owner's candidate (taking the
// candidate lock), like Configure. An SSH CLI device is configured with
// CLI lines; the one YANG edit translated is an interface's description in
// openconfig-interfaces, set (merge, replace, create) or removed (delete,
// remove):
//
//	/openconfig-interfaces:interfaces/interface[name='NAME']/config/description
//
// becomes "interface NAME", "description TEXT" ("no description", VRP
// "undo description") and the context's exit; on Junos "set interfaces
// NAME description "TEXT"" ("delete interfaces NAME description"). Any
// other edit is refused with -32084 naming network.cli.configure.
func (drv *Driver) Edit(ctx context.Context, owner device.Owner, edits []device.Edit) error {
	if len(edits) == 0 {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "no edits")
	}
	var lines []string
	for _, e := range edits {
		l, err := drv.editLines(e)
		if err != nil {
			return err
		}
		lines = append(lines, l...)
	}
	for _, l := range lines {
		if err := checkLine(l); err != nil {
			var ne *netproto.Error
			if errors.As(err, &ne) {
				ne.Path = edits[0].Path
			}
			return err
		}
	}
	return drv.addPending(ctx, owner, lines)
}

// editLines translates one edit into CLI lines (see Edit).
func (drv *Driver) editLines(e device.Edit) ([]string, error) {
	refuse := func(format string, a ...any) ([]string, error) {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible,
			"%s is configured through its CLI (%s): the only YANG edit it takes is %s/interface[name='NAME']/config/description (set or delete); %s; use network.cli.configure with configuration lines for anything else",
			drv.cfg.Name, drv.d.name, "/"+ocview.Member, fmt.Sprintf(format, a...)).WithPath(e.Path)
	}
	p, err := device.ParsePath(e.Path)
	if err != nil {
		return nil, err
	}
	if len(p) != 4 || p[0].Module != ocview.Module || p[0].Name != "interfaces" ||
		p[1].Name != "interface" || len(p[1].Keys) != 1 || p[1].Keys[0].Name != "name" ||
		p[2].Name != "config" || p[3].Name != "description" ||
		(p[1].Module != "" && p[1].Module != ocview.Module) || (p[2].Module != "" && p[2].Module != ocview.Module) || (p[3].Module != "" && p[3].Module != ocview.Module) {
		return refuse("%s is not that path", e.Path)
	}
	name := p[1].Keys[0].Value
	if name == "" || strings.ContainsAny(name, " \t\"") {
		return refuse("interface name %q is not one CLI word", name)
	}
	del := false
	switch op := cmpOr(string(e.Operation), string(device.OpMerge)); device.EditOperation(op) {
	case device.OpMerge, device.OpReplace, device.OpCreate:
	case device.OpDelete, device.OpRemove:
		del = true
	default:
		return nil, netproto.Errorf(netproto.CodeYangSyntaxError, "unknown edit operation %q (want merge, replace, create, delete or remove)", op).WithPath(e.Path)
	}
	text := ""
	if !del {
		s, ok := e.Value.(string)
		if !ok || strings.TrimSpace(s) == "" || s != strings.TrimSpace(s) {
			return refuse("the value %v is not a description (a non-empty string without leading or trailing blanks)", e.Value)
		}
		text = s
	}
	if drv.d.name == DialectJunos {
		if del {
			return []string{"delete interfaces " + name + " description"}, nil
		}
		if strings.ContainsAny(text, `"\`) {
			return refuse("a Junos description cannot hold %q or %q here", `"`, `\`)
		}
		return []string{"set interfaces " + name + ` description "` + text + `"`}, nil
	}
	set := "description " + text
	if del {
		set = drv.d.negate("description")
	}
	return []string{"interface " + name, set, drv.d.exitContext()}, nil
}
