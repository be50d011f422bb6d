package agent

import (
	"encoding/json"
	"strconv"
	"strings"
)

// ifState is what the workflow reads of one interface.
type ifState struct {
	Addr                    string // first IPv4 address
	OutPkts, InPkts         uint64
	OutDiscards, InDiscards uint64
	InErrors, OutErrors     uint64
}

// parseIfState reads an openconfig-interfaces interface subtree (as
// network.yang.get returns it, under "data").
func parseIfState(body json.RawMessage) (ifState, bool) {
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return ifState{}, false
	}
	var st ifState
	c, ok := findMember(doc, "counters").(map[string]any)
	if !ok {
		return st, false
	}
	u := func(k string) uint64 {
		switch v := c[k].(type) {
		case string:
			n, _ := strconv.ParseUint(v, 10, 64)
			return n
		case float64:
			return uint64(v)
		}
		return 0
	}
	st.OutPkts, st.InPkts = u("out-pkts"), u("in-pkts")
	st.OutDiscards, st.InDiscards = u("out-discards"), u("in-discards")
	st.InErrors, st.OutErrors = u("in-errors"), u("out-errors")
	if v4 := findMember(doc, "ipv4"); v4 != nil {
		if addrs, ok := findMember(v4, "address").([]any); ok {
			for _, a := range addrs {
				if m, ok := a.(map[string]any); ok {
					if ip, _ := m["ip"].(string); ip != "" {
						st.Addr = ip
						break
					}
				}
			}
		}
	}
	return st, true
}

// findMember returns the first member named name (or module:name) found
// depth-first in v.
func findMember(v any, name string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if k == name || strings.HasSuffix(k, ":"+name) {
				return val
			}
		}
		for _, val := range x {
			if r := findMember(val, name); r != nil {
				return r
			}
		}
	case []any:
		for _, val := range x {
			if r := findMember(val, name); r != nil {
				return r
			}
		}
	}
	return nil
}
