// Package wire converts between netmcp's vocabulary (YANG instance paths
// and RFC 7951 trees of package yang, *netproto.Error) and gNMI's (paths
// with an origin, typed values, gRPC statuses). The gnmi:// driver and the
// gNMI server share it, so both sides name a node the same way.
//
// # Paths
//
// A YANG path's first element carries its module
// (/openconfig-interfaces:interfaces); a gNMI path names the module by its
// origin. OriginStyle, what gNMI targets expect, writes an openconfig-*
// module as origin "openconfig" with a bare first element
// (openconfig:/interfaces/interface[name=eth0]) and any other module as an
// origin of its own name (ietf-interfaces:/interfaces). PrefixStyle writes
// the module into the first element's name, RFC 7951 fashion, with no
// origin. In both, a later element whose module changes keeps its prefix
// (/interfaces/interface[name=eth0]/ietf-ip:ipv4), as the YANG path
// writes it. Both are read back; a bare first element under origin
// "openconfig" (or none) is resolved to its module by a Resolver.
package wire

import (
	"fmt"
	"slices"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// OriginOpenConfig is the origin of OpenConfig modules (the default of an
// empty origin).
const OriginOpenConfig = "openconfig"

// originRFC7951 is an origin some clients use for paths whose first
// element carries its module prefix.
const originRFC7951 = "rfc7951"

// Style says how a gNMI path names the module of its first element.
type Style int

// Path styles.
const (
	// OriginStyle: origin "openconfig" for openconfig-* modules, the
	// module's name otherwise; the first element's name bare.
	OriginStyle Style = iota
	// PrefixStyle: no origin; the first element is "module:name".
	PrefixStyle
)

// Wildcard is a key value or element name that matches anything.
const Wildcard = "*"

// IsOpenConfig reports whether module is an OpenConfig module.
func IsOpenConfig(module string) bool { return strings.HasPrefix(module, "openconfig-") }

// ToGNMI converts a YANG path to a gNMI path in style s. The root (an
// empty path) has no elements and, in OriginStyle, no origin.
func ToGNMI(p yang.Path, s Style) *gpb.Path {
	out := &gpb.Path{Elem: make([]*gpb.PathElem, 0, len(p))}
	for i, e := range p {
		name := e.Name
		switch {
		case i == 0 && s == OriginStyle:
			out.Origin = e.Module
			if IsOpenConfig(e.Module) {
				out.Origin = OriginOpenConfig
			}
		case e.Module != "":
			name = e.Module + ":" + e.Name
		}
		pe := &gpb.PathElem{Name: name}
		if len(e.Keys) > 0 {
			pe.Key = make(map[string]string, len(e.Keys))
			for _, k := range e.Keys {
				pe.Key[k.Name] = k.Value
			}
		}
		out.Elem = append(out.Elem, pe)
	}
	return out
}

// Resolver names the module of a bare top-level element name under an
// origin ("openconfig" or ""), or returns false.
type Resolver func(origin, name string) (module string, ok bool)

// Join returns prefix's elements followed by p's, with the origin of
// either (gNMI forbids giving it in both).
func Join(prefix, p *gpb.Path) *gpb.Path {
	if prefix == nil || (len(prefix.GetElem()) == 0 && prefix.GetOrigin() == "") {
		if p == nil {
			return &gpb.Path{}
		}
		return p
	}
	out := &gpb.Path{Origin: prefix.GetOrigin(), Target: prefix.GetTarget()}
	if out.Origin == "" {
		out.Origin = p.GetOrigin()
	}
	out.Elem = append(slices.Clone(prefix.GetElem()), p.GetElem()...)
	return out
}

// FromGNMI converts a gNMI path to a YANG path, and tells which style it
// was written in. The old "element" field (gNMI 0.3) is read when no elem
// is given. Errors are *netproto.Error: -32088 for a path that cannot be
// a YANG path, -32084 for a top-level element whose module is unknown or
// the "cli" origin.
func FromGNMI(p *gpb.Path, resolve Resolver) (yang.Path, Style, error) {
	elems := p.GetElem()
	//lint:ignore SA1019 the deprecated element field (gNMI 0.3) is read for older targets
	if len(elems) == 0 && len(p.GetElement()) > 0 {
		//lint:ignore SA1019 the deprecated element field (gNMI 0.3) is read for older targets
		for _, n := range p.GetElement() {
			elems = append(elems, &gpb.PathElem{Name: n})
		}
	}
	origin := p.GetOrigin()
	if origin == "cli" {
		return nil, 0, netproto.Errorf(netproto.CodeConfigIncompatible, "origin \"cli\" is not supported: this target serves YANG data only")
	}
	if len(elems) == 0 {
		return yang.Path{}, OriginStyle, nil
	}
	out := make(yang.Path, 0, len(elems))
	style := OriginStyle
	module := ""
	for i, pe := range elems {
		name := pe.GetName()
		if name == "" {
			return nil, 0, netproto.Errorf(netproto.CodeYangSyntaxError, "path %s: element %d has no name", Text(p), i+1)
		}
		e := yang.PathElem{Name: name}
		if mod, local, ok := strings.Cut(name, ":"); ok {
			if mod == "" || local == "" {
				return nil, 0, netproto.Errorf(netproto.CodeYangSyntaxError, "path %s: element %q is not module:name", Text(p), name)
			}
			e.Name = local
			if mod != module {
				e.Module = mod
			}
			if i == 0 {
				style = PrefixStyle
			}
		} else if i == 0 {
			switch origin {
			case "", OriginOpenConfig:
				m, ok := resolve(origin, name)
				if !ok {
					return nil, 0, netproto.Errorf(netproto.CodeConfigIncompatible,
						"path %s: no module of the target has a top-level node %q", Text(p), name).WithPath("/" + name)
				}
				e.Module = m
			case originRFC7951:
				return nil, 0, netproto.Errorf(netproto.CodeYangSyntaxError, "path %s: origin rfc7951 needs a module prefix on the first element", Text(p))
			default:
				e.Module = origin
			}
		}
		if e.Module != "" {
			module = e.Module
		}
		if len(pe.GetKey()) > 0 {
			names := make([]string, 0, len(pe.GetKey()))
			for k := range pe.GetKey() {
				names = append(names, k)
			}
			slices.Sort(names)
			for _, k := range names {
				e.Keys = append(e.Keys, yang.Key{Name: k, Value: pe.GetKey()[k]})
			}
		}
		out = append(out, e)
	}
	return out, style, nil
}

// HasWildcard reports whether p has a wildcard element name or key value.
func HasWildcard(p yang.Path) bool {
	for _, e := range p {
		if e.Name == Wildcard || e.Name == "..." {
			return true
		}
		for _, k := range e.Keys {
			if k.Value == Wildcard {
				return true
			}
		}
	}
	return false
}

// Unkeyed returns p with every element whose keys hold a wildcard made
// keyless (a YANG path naming a list without keys selects every entry).
func Unkeyed(p yang.Path) yang.Path {
	out := slices.Clone(p)
	for i, e := range out {
		for _, k := range e.Keys {
			if k.Value == Wildcard {
				out[i].Keys = nil
				break
			}
		}
	}
	return out
}

// Match reports whether the leaf path l lies at or below the pattern p:
// element names equal (or the pattern's is "*"), and every key of the
// pattern equal to the leaf's (or "*"). A pattern element without keys
// matches any entry.
func Match(p, l yang.Path) bool {
	if len(l) < len(p) {
		return false
	}
	for i, pe := range p {
		le := l[i]
		if pe.Name != Wildcard && pe.Name != le.Name {
			return false
		}
		if i == 0 && pe.Module != "" && pe.Module != le.Module {
			return false
		}
		for _, k := range pe.Keys {
			if k.Value == Wildcard {
				continue
			}
			found := false
			for _, lk := range le.Keys {
				if lk.Name == k.Name {
					found = lk.Value == k.Value
					break
				}
			}
			if !found {
				return false
			}
		}
	}
	return true
}

// Module returns the module of p's last element (the first element's
// module unless a later one changes it); "" for the root.
func Module(p yang.Path) string {
	m := ""
	for _, e := range p {
		if e.Module != "" {
			m = e.Module
		}
	}
	return m
}

// Text renders a gNMI path for messages: origin:/a/b[k=v].
func Text(p *gpb.Path) string {
	var b strings.Builder
	if o := p.GetOrigin(); o != "" {
		b.WriteString(o + ":")
	}
	elems := p.GetElem()
	//lint:ignore SA1019 the deprecated element field (gNMI 0.3) is read for older targets
	if len(elems) == 0 && len(p.GetElement()) == 0 {
		b.WriteString("/")
	}
	for _, e := range elems {
		b.WriteString("/" + e.GetName())
		keys := make([]string, 0, len(e.GetKey()))
		for k := range e.GetKey() {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "[%s=%s]", k, e.GetKey()[k])
		}
	}
	//lint:ignore SA1019 the deprecated element field (gNMI 0.3) is read for older targets
	for _, n := range p.GetElement() {
		if len(elems) == 0 {
			b.WriteString("/" + n)
		}
	}
	return b.String()
}
