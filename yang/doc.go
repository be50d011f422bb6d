// Package yang handles YANG instance paths and RFC 7951 JSON data trees:
// parse a path, get, merge, replace, create and delete nodes, diff two trees,
// and validate a tree against a schema of the modules netmcp serves.
//
// Trees are generic JSON values as encoding/json decodes them into any:
// map[string]any, []any, string, float64, bool and nil. Lists are JSON
// arrays of objects; an entry is found by its keys (from the path, or from
// the Schema when merging whole subtrees).
//
// The shapes of the trees netmcp serves are written down in docs/datamodel.md.
package yang
