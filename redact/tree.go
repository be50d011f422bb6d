package redact

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Tree returns the RFC 7951 JSON tree v (as encoding/json decodes it)
// with every secret leaf value replaced by Mask: leaves whose local name is
// a secret name, leaves at a secret schema path, and every leaf inside a
// container so named (ietf-key-chain's key-string container holds its
// hexadecimal-string). Leaf-lists of secrets are masked element by element;
// a list so named (openconfig-system's SNMP community list) is not secret
// as a whole, its entries' leaves are judged by their own names. Known
// secrets are masked in every other string. Tree learns nothing (see
// LearnTree). v is not modified: subtrees with nothing to mask are shared
// with v, the rest are copies.
func (r *Redactor) Tree(v any) any {
	out, _ := r.TreeChanged(v)
	return out
}

// TreeChanged is Tree, and also reports whether anything was masked (when
// not, the result is v itself).
func (r *Redactor) TreeChanged(v any) (any, bool) {
	r.mu.RLock()
	repl := r.repl
	r.mu.RUnlock()
	return r.walk(v, "", public, &walker{repl: repl})
}

// TreeStrings is TreeChanged (known true) or TreeStructural (known false)
// that also passes every string leaf not masked as a secret leaf through
// fn (after its known secrets are masked, with known), in the same walk:
// one pass over the tree where a caller would otherwise walk it twice.
// ok is false when v holds a value of another type than those
// encoding/json decodes into an any (and Go's integer types): its insides
// were not looked at, so the result must not be taken as masked.
func (r *Redactor) TreeStrings(v any, known bool, fn func(string) string) (out any, changed, ok bool) {
	w := &walker{str: fn}
	if known {
		r.mu.RLock()
		w.repl = r.repl
		r.mu.RUnlock()
	}
	out, changed = r.walk(v, "", public, w)
	return out, changed, !w.opaque
}

// TreeStructural masks the secret leaves of v by name and schema path only,
// not the known values in other strings (see ConfigSyntax for why), and
// reports whether anything was masked.
func (r *Redactor) TreeStructural(v any) (any, bool) {
	return r.walk(v, "", public, &walker{})
}

// ValueAt masks v as the content of the node at the instance or schema path
// p (an edit's value): the names along p decide whether v is secret as a
// whole (a password leaf, a key-string container) before the names inside
// v are judged, so a plain value sent to a secret leaf is masked even though
// nothing in v itself is named like a secret. Known secrets are masked in
// the other strings. It reports whether anything was masked.
func (r *Redactor) ValueAt(p string, v any) (any, bool) {
	r.mu.RLock()
	repl := r.repl
	r.mu.RUnlock()
	return r.valueAt(p, v, repl)
}

// ValueAtStructural is ValueAt without masking known values.
func (r *Redactor) ValueAtStructural(p string, v any) (any, bool) {
	return r.valueAt(p, v, nil)
}

func (r *Redactor) valueAt(p string, v any, repl *secretReplacer) (any, bool) {
	path, s := "", public
	for _, part := range strings.Split(strings.Trim(schemaKey(p), "/"), "/") {
		if part == "" {
			continue
		}
		var local string
		path, local = r.childPath(path, part)
		s = r.member(s, local, path)
	}
	return r.walk(v, path, s, &walker{repl: repl})
}

// LearnTree makes known the values of the secret leaves of v (the device's
// configuration as a YANG tree).
func (r *Redactor) LearnTree(v any) {
	var found []string
	r.visit(v, "", public, func(leaf any) {
		switch s := leaf.(type) {
		case string:
			found = append(found, s)
		case json.Number:
			found = append(found, s.String())
		}
	})
	r.addSecrets(found)
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

// walker is what a walk does besides masking secret leaves.
type walker struct {
	// repl masks known secrets in the other leaves (nil: none).
	repl *secretReplacer
	// str, when set, rewrites every public string leaf.
	str func(string) string
	// opaque is set when a leaf of another type than a decoded JSON
	// document's (and Go's integers) was met.
	opaque bool
}

// walk returns v masked and whether anything changed. A map or list is
// copied only when something in it changes; v is never modified.
func (r *Redactor) walk(v any, path string, s secrecy, w *walker) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		var out map[string]any
		for k, child := range t {
			p, local := r.childPath(path, k)
			masked, changed := r.walk(child, p, r.member(s, local, p), w)
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
			masked, changed := r.walk(e, path, element(s, e), w)
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
		switch v.(type) {
		case string, bool, json.Number, float64, int, int64, uint32, uint64:
		default:
			w.opaque = true
		}
		if s != public {
			return Mask, true
		}
		repl := w.repl
		switch x := v.(type) {
		case string:
			m := maskKnown(x, repl)
			if w.str != nil {
				m = w.str(m)
			}
			if m != x {
				return m, true
			}
		case json.Number:
			if maskKnown(x.String(), repl) != x.String() {
				return Mask, true
			}
		case float64, int, int64, uint32, uint64:
			// A number of a tree not decoded from JSON, as encoding/json
			// would write it.
			if repl != nil {
				if n := numberText(x); maskKnown(n, repl) != n {
					return Mask, true
				}
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

// numberText writes a Go number as encoding/json does (for the values trees
// hold: integers, and floats in the range it writes without an exponent),
// without json.Marshal's allocations on every numeric leaf.
func numberText(v any) string {
	switch n := v.(type) {
	case int:
		return strconv.Itoa(n)
	case int64:
		return strconv.FormatInt(n, 10)
	case uint32:
		return strconv.FormatUint(uint64(n), 10)
	case uint64:
		return strconv.FormatUint(n, 10)
	case float64:
		if a := math.Abs(n); a != 0 && (a < 1e-6 || a >= 1e21) {
			b, _ := json.Marshal(n) // the exponent form, as encoding/json writes it
			return string(b)
		}
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	return ""
}
