package sim

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// This file undoes a configuration fault: a three-way merge of a device's
// configuration before the fault, with the fault, and now. What the fault
// changed comes back as it was unless someone has changed it since; those
// parts are left as they are now and reported.

// missing marks a value absent from one side of the merge.
type missingT struct{}

var missing any = missingT{}

// plainOf turns a device into plain JSON data (maps, slices, scalars).
func plainOf(d topology.Device) any {
	b, err := json.Marshal(d)
	if err != nil {
		panic(fmt.Sprintf("sim: encoding a device: %v", err))
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		panic(fmt.Sprintf("sim: decoding a device: %v", err))
	}
	return v
}

// deviceOf turns plain data back into a device.
func deviceOf(v any) (topology.Device, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return topology.Device{}, err
	}
	var d topology.Device
	err = json.Unmarshal(b, &d)
	return d, err
}

// sameDevice tells whether two configurations are the same.
func sameDevice(a, b topology.Device) bool {
	return reflect.DeepEqual(plainOf(a), plainOf(b))
}

// undoChange returns current with the change from before to after undone,
// and the places (JSON paths) where current no longer holds what the
// change made, which it leaves as they are.
func undoChange(before, after, current topology.Device) (topology.Device, []string, error) {
	var conflicts []string
	v := merge3(plainOf(before), plainOf(after), plainOf(current), "", &conflicts)
	d, err := deviceOf(v)
	return d, conflicts, err
}

// elemKey returns the identity of an element of a list of objects (its
// name, address, prefix and VRF, sequence number...), or "" when the
// element has none of them.
func elemKey(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	var parts []string
	for _, k := range []string{"name", "address", "prefix", "seq", "id", "slot", "ip", "type", "vrf", "oui", "subtype"} {
		if x, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%v", k, x))
		}
		if k == "seq" && len(parts) > 0 {
			break // a rule is its sequence number
		}
	}
	return strings.Join(parts, ",")
}

// keyed tells whether every element of a list has an identity.
func keyed(l []any) bool {
	for _, e := range l {
		if elemKey(e) == "" {
			return false
		}
	}
	return true
}

// merge3 undoes before→after on current at path.
func merge3(b, a, c any, path string, conflicts *[]string) any {
	if reflect.DeepEqual(b, a) {
		return c // the fault did not touch this
	}
	if reflect.DeepEqual(c, a) {
		return b // untouched since: back to before
	}
	bm, bok := b.(map[string]any)
	am, aok := a.(map[string]any)
	cm, cok := c.(map[string]any)
	if bok && aok && cok {
		out := map[string]any{}
		keys := map[string]bool{}
		for _, m := range []map[string]any{bm, am, cm} {
			for k := range m {
				keys[k] = true
			}
		}
		for k := range keys {
			v := merge3(get(bm, k), get(am, k), get(cm, k), path+"/"+k, conflicts)
			if v != missing {
				out[k] = v
			}
		}
		return out
	}
	bl, blok := asList(b)
	al, alok := asList(a)
	cl, clok := asList(c)
	if blok && alok && clok {
		if keyed(bl) && keyed(al) && keyed(cl) {
			return mergeKeyed(bl, al, cl, path, conflicts)
		}
		if scalars(bl) && scalars(al) && scalars(cl) {
			return mergeSet(bl, al, cl)
		}
	}
	*conflicts = append(*conflicts, cmpPath(path))
	return c
}

func cmpPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func get(m map[string]any, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	return missing
}

// asList reads a list; an absent list is an empty one.
func asList(v any) ([]any, bool) {
	if v == missing || v == nil {
		return nil, true
	}
	l, ok := v.([]any)
	return l, ok
}

func scalars(l []any) bool {
	for _, e := range l {
		switch e.(type) {
		case map[string]any, []any:
			return false
		}
	}
	return true
}

// mergeKeyed undoes a change of a list of identified objects: elements in
// current's order, those the change removed put back at their place.
func mergeKeyed(b, a, c []any, path string, conflicts *[]string) any {
	index := func(l []any) map[string]any {
		m := make(map[string]any, len(l))
		for _, e := range l {
			m[elemKey(e)] = e
		}
		return m
	}
	bi, ai, ci := index(b), index(a), index(c)
	var out []any
	for _, e := range c {
		k := elemKey(e)
		if v := merge3(getKey(bi, k), getKey(ai, k), e, path+"["+k+"]", conflicts); v != missing {
			out = append(out, v)
		}
	}
	for pos, e := range b {
		k := elemKey(e)
		if _, inC := ci[k]; inC {
			continue
		}
		if v := merge3(e, getKey(ai, k), missing, path+"["+k+"]", conflicts); v != missing {
			out = insertAt(out, min(pos, len(out)), v)
		}
	}
	if len(out) == 0 && c == nil {
		return missing
	}
	return out
}

func getKey(m map[string]any, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	return missing
}

func insertAt(l []any, i int, v any) []any {
	l = append(l, nil)
	copy(l[i+1:], l[i:])
	l[i] = v
	return l
}

// mergeSet undoes a change of a list of scalars taken as a set: what the
// change added goes, what it removed comes back at its place.
func mergeSet(b, a, c []any) any {
	has := func(l []any, v any) bool {
		for _, e := range l {
			if reflect.DeepEqual(e, v) {
				return true
			}
		}
		return false
	}
	var out []any
	for _, e := range c {
		if has(a, e) && !has(b, e) {
			continue
		}
		out = append(out, e)
	}
	for pos, e := range b {
		if !has(a, e) && !has(out, e) {
			out = insertAt(out, min(pos, len(out)), e)
		}
	}
	if len(out) == 0 {
		return missing
	}
	return out
}
