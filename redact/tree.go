package redact

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Tree returns the RFC 7951 JSON tree v (as encoding/json decodes it)
// with every secret leaf value replaced by Mask: leaves whose local name is
// a secret name, leaves at a secret schema path, and every leaf inside a
// container so named (ietf-key-chain's key-string container holds its
// hexadecimal-string). Leaf-lists of secrets are masked element by element;
// a list so named (openconfig-system's SNMP community list) is not secret
// as a whole, its entries' leaves are judged by their own names. Known
// secrets are masked in every other string. The masked values become known secrets. v is not modified:
// subtrees with nothing to mask are shared with v, the rest are copies.
func (r *Redactor) Tree(v any) any {
	out, _ := r.TreeChanged(v)
	return out
}

// TreeChanged is Tree, and also reports whether anything was masked (when
// not, the result is v itself).
func (r *Redactor) TreeChanged(v any) (any, bool) {
	r.visit(v, "", public, func(leaf any) {
		switch s := leaf.(type) {
		case string:
			r.AddSecret(s)
		case json.Number:
			r.AddSecret(s.String())
		}
	})
	return r.walk(v, "", public)
}

// secrecy is what a node's name and its ancestors say about its values.
type secrecy int

const (
	public        secrecy = iota
	secretName            // the member's own name or path is secret
	secretSubtree         // inside a container whose name is secret: all of it is
)

// member returns the secrecy of a member named local at path p below a
// node of secrecy s.
func (r *Redactor) member(s secrecy, local, p string) secrecy {
	switch {
	case s == secretSubtree || s == secretName: // s is a secret container
		return secretSubtree
	case r.leaves[local] || r.paths[p]:
		return secretName
	}
	return public
}

// element returns the secrecy of an element of a list of secrecy s: a
// scalar of a secret leaf-list is secret, an entry of a list that only
// bears a secret name is not.
func element(s secrecy, e any) secrecy {
	if _, entry := e.(map[string]any); entry && s == secretName {
		return public
	}
	return s
}

// visit calls learn for every secret leaf value.
func (r *Redactor) visit(v any, path string, s secrecy, learn func(any)) {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			p, local := r.childPath(path, k)
			r.visit(child, p, r.member(s, local, p), learn)
		}
	case []any:
		for _, e := range t {
			r.visit(e, path, element(s, e), learn)
		}
	default:
		if s != public {
			learn(v)
		}
	}
}

// noPath stands for the schema path of a node below which no secret path
// lies: it is neither a secret path nor a prefix of one, so the paths of
// such a subtree are never built (most of a tree is such a subtree).
const noPath = "\x00"

// childPath returns the schema path of member k below path (noPath when no
// secret path lies below path) and k's local name.
func (r *Redactor) childPath(path, k string) (string, string) {
	local := k
	if i := strings.IndexByte(k, ':'); i >= 0 {
		local = k[i+1:]
	}
	switch {
	case path == "":
		return "/" + k, local
	case !r.prefixes[path]:
		return noPath, local
	}
	return path + "/" + local, local
}

// walk returns v masked and whether anything changed. A map or list is
// copied only when something in it changes; v is never modified.
func (r *Redactor) walk(v any, path string, s secrecy) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		var out map[string]any
		for k, child := range t {
			p, local := r.childPath(path, k)
			masked, changed := r.walk(child, p, r.member(s, local, p))
			if changed {
				if out == nil {
					out = maps.Clone(t)
				}
				out[k] = masked
			}
		}
		if out == nil {
			return t, false
		}
		return out, true
	case []any:
		var out []any
		for i, e := range t {
			masked, changed := r.walk(e, path, element(s, e))
			if changed {
				if out == nil {
					out = slices.Clone(t)
				}
				out[i] = masked
			}
		}
		if out == nil {
			return t, false
		}
		return out, true
	case nil:
		return nil, false
	default:
		if s != public {
			return Mask, true
		}
		switch x := v.(type) {
		case string:
			if m := r.String(x); m != x {
				return m, true
			}
		case json.Number:
			if r.String(x.String()) != x.String() {
				return Mask, true
			}
		}
		return v, false
	}
}

// JSON redacts a JSON document: secret leaves masked as in Tree, known
// secrets masked in every other string. Text that is not JSON is masked
// as by String. The output is compact JSON with members sorted.
func (r *Redactor) JSON(doc []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return []byte(r.String(string(doc)))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r.Tree(v)); err != nil {
		return []byte(r.String(string(doc)))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
