package redact

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Tree returns a copy of the RFC 7951 JSON tree v (as encoding/json
// decodes it) with every secret leaf value replaced by Mask: leaves whose
// local name is a secret name, and leaves at a secret schema path. Leaf-
// lists of secrets are masked element by element. The masked values become
// known secrets. v is not modified.
func (r *Redactor) Tree(v any) any {
	r.visit(v, "", false, func(leaf any) {
		switch s := leaf.(type) {
		case string:
			r.AddSecret(s)
		case json.Number:
			r.AddSecret(s.String())
		}
	})
	return r.walk(v, "", false)
}

// visit calls learn for every secret leaf value.
func (r *Redactor) visit(v any, path string, secret bool, learn func(any)) {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			p, local := childPath(path, k)
			r.visit(child, p, r.leaves[local] || r.paths[p], learn)
		}
	case []any:
		for _, e := range t {
			r.visit(e, path, secret, learn)
		}
	default:
		if secret {
			learn(v)
		}
	}
}

// childPath returns the schema path of member k below path and k's local name.
func childPath(path, k string) (string, string) {
	local := k
	if i := strings.IndexByte(k, ':'); i >= 0 {
		local = k[i+1:]
	}
	if path == "" {
		return "/" + k, local
	}
	return path + "/" + local, local
}

func (r *Redactor) walk(v any, path string, secret bool) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, child := range t {
			p, local := childPath(path, k)
			out[k] = r.walk(child, p, r.leaves[local] || r.paths[p])
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = r.walk(e, path, secret)
		}
		return out
	case nil:
		return nil
	default:
		if secret {
			return Mask
		}
		switch s := v.(type) {
		case string:
			return r.String(s)
		case json.Number:
			if r.String(s.String()) != s.String() {
				return Mask
			}
		}
		return v
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
