package server

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/netmcp/netmcp/device"
)

// A tool's schemas are inferred from the Go types its handler decodes its
// arguments into and returns (jsonschema.For): one property per field,
// named by its json tag, typed by its Go type and described by its
// jsonschema tag; a field without omitempty or omitzero is required. What
// no Go type says (lengths, ranges, enumerations, defaults) is laid over
// the inferred schema by a refinement (see refine).

// resultTypes are the types whose schema in a result is kept short: a
// candidate's changes and a commit's diff hold any YANG JSON, so a result
// schema says only that they are an array and an object.
var resultTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[[]device.Change](): {Type: "array"},
	reflect.TypeFor[device.Diff]():     {Type: "object"},
}

// inputSchema returns the schema of a tool's arguments decoded into T,
// refined by r: an object without other members than T's.
func inputSchema[T any](r *jsonschema.Schema) *jsonschema.Schema {
	return inferSchema[T](nil, r)
}

// outputSchema returns the schema of a tool's structuredContent encoded
// from T, refined by r. It admits members T does not have: a client
// checks what it knows of a result, and a later server may add members.
func outputSchema[T any](r *jsonschema.Schema) *jsonschema.Schema {
	s := inferSchema[T](resultTypes, r)
	s.AdditionalProperties = nil
	return s
}

// inferSchema returns the schema of T (types maps Go types to the schema
// they get), without null in any type, refined by r. It panics when T has
// no schema or r refines what T does not have: the schemas are built when
// the package is initialised, so such a mistake stops every test.
func inferSchema[T any](types map[reflect.Type]*jsonschema.Schema, r *jsonschema.Schema) *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: types})
	if err != nil {
		panic(fmt.Sprintf("server: schema of %T: %v", *new(T), err))
	}
	dropNull(s)
	if r != nil {
		if err := refine(s, r, reflect.TypeFor[T]().String()); err != nil {
			panic("server: " + err.Error())
		}
	}
	return s
}

// dropNull removes "null" from the types of s and its subschemas. A nil
// slice or pointer makes For admit null, but no argument of a tool may
// be null, and the server writes no null where a schema names a type.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if i := slices.Index(s.Types, "null"); i >= 0 {
		s.Types = slices.Delete(slices.Clone(s.Types), i, i+1)
		if len(s.Types) == 1 {
			s.Type, s.Types = s.Types[0], nil
		}
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	dropNull(s.Items)
}

// refine lays r over s: each keyword r sets replaces s's (Type and Types
// replace each other); r's properties and items refine s's, which must
// exist; r's required names must be properties of s. at names s in errors.
func refine(s, r *jsonschema.Schema, at string) error {
	sv, rv := reflect.ValueOf(s).Elem(), reflect.ValueOf(r).Elem()
	for i := range rv.NumField() {
		name, f := rv.Type().Field(i).Name, rv.Field(i)
		if f.IsZero() {
			continue
		}
		switch name {
		case "Properties":
			for k, p := range r.Properties {
				if s.Properties[k] == nil {
					return fmt.Errorf("schema of %s: no property %q to refine", at, k)
				}
				if err := refine(s.Properties[k], p, at+"."+k); err != nil {
					return err
				}
			}
		case "Items":
			if s.Items == nil {
				return fmt.Errorf("schema of %s: no items to refine", at)
			}
			if err := refine(s.Items, r.Items, at+"[]"); err != nil {
				return err
			}
		case "Required":
			for _, k := range r.Required {
				if s.Properties[k] == nil {
					return fmt.Errorf("schema of %s: required %q is no property", at, k)
				}
			}
			s.Required = slices.Clone(r.Required)
		case "Type":
			s.Type, s.Types = r.Type, nil
		case "Types":
			s.Type, s.Types = "", slices.Clone(r.Types)
		default:
			sv.Field(i).Set(f)
		}
	}
	return nil
}

// jsonValue returns v as JSON, for a schema's default.
func jsonValue(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// constValue returns v as a schema's const.
func constValue(v any) *any { return &v }
