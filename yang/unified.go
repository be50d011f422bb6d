package yang

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// contextLines is the number of unchanged lines around each hunk.
const contextLines = 3

// maxEditDistance bounds the Myers search; beyond it the differing middle
// is shown as one replaced block (still a correct diff, not a minimal one).
const maxEditDistance = 1000

// UnifiedDiff returns a unified diff (---/+++/@@) from a to b, both rendered
// as indented JSON with sorted keys, or "" when they are equal. Secret
// values are shown as redaction tags (see Redact).
func UnifiedDiff(a, b map[string]any, fromName, toName string) string {
	ra, _ := Redact(a).(map[string]any)
	rb, _ := Redact(b).(map[string]any)
	la, lb := jsonLines(ra), jsonLines(rb)
	ops := diffLines(la, lb)
	changed := false
	for _, o := range ops {
		if o.kind != ' ' {
			changed = true
			break
		}
	}
	if !changed {
		return ""
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", fromName, toName)
	writeHunks(&out, ops)
	return out.String()
}

func jsonLines(m map[string]any) []string {
	if m == nil {
		m = map[string]any{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return []string{fmt.Sprintf("%q", err.Error())}
	}
	return strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
}

// lineOp is one line of an edit script: ' ' kept, '-' deleted, '+' inserted.
// ai and bi are the line's indexes in a and b (the one not applying is the
// index of the next line there).
type lineOp struct {
	kind   byte
	text   string
	ai, bi int
}

// diffLines returns an edit script from a to b: common prefix and suffix
// are trimmed, the middle is diffed with Myers' O((N+M)D) algorithm.
func diffLines(a, b []string) []lineOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []lineOp
	for i := 0; i < pre; i++ {
		ops = append(ops, lineOp{' ', a[i], i, i})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for i := 0; i < suf; i++ {
		ia, ib := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, lineOp{' ', a[ia], ia, ib})
	}
	return ops
}

// myers diffs a and b (offsets oa, ob in the whole inputs).
func myers(a, b []string, oa, ob int) []lineOp {
	n, m := len(a), len(b)
	replace := func() []lineOp {
		ops := make([]lineOp, 0, n+m)
		for i, s := range a {
			ops = append(ops, lineOp{'-', s, oa + i, ob})
		}
		for j, s := range b {
			ops = append(ops, lineOp{'+', s, oa + n, ob + j})
		}
		return ops
	}
	if n == 0 || m == 0 {
		return replace()
	}
	max := n + m
	if max > maxEditDistance {
		max = maxEditDistance
	}
	off := max + 1
	v := make([]int, 2*max+3)
	var trace [][]int
	found := false
	for d := 0; d <= max && !found; d++ {
		// Keep v[k] for k in [-d-1, d+1]: all the backtrack reads of round d.
		snap := make([]int, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	if !found {
		return replace()
	}
	// Walk the trace backwards.
	var rev []lineOp
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		vd, o := trace[d], d+1
		k := x - y
		var pk int
		if k == -d || (k != d && vd[o+k-1] < vd[o+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := vd[o+pk]
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, lineOp{' ', a[x], oa + x, ob + y})
		}
		if d > 0 {
			if x == px {
				y--
				rev = append(rev, lineOp{'+', b[y], oa + x, ob + y})
			} else {
				x--
				rev = append(rev, lineOp{'-', a[x], oa + x, ob + y})
			}
		}
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// writeHunks writes the changed parts of ops with context as @@ hunks.
func writeHunks(out *strings.Builder, ops []lineOp) {
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := i - contextLines
		if start < 0 {
			start = 0
		}
		// Extend the hunk while changes are within 2*context lines.
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*contextLines {
				end += min(contextLines, run-end)
				break
			}
			end = run
		}
		na, nb := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(ops[start].ai, na), hunkRange(ops[start].bi, nb))
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			out.WriteByte('\n')
		}
		i = end
	}
}

// hunkRange formats a hunk's start,count in GNU diff style (1-based; an
// empty range names the line before it).
func hunkRange(start, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if count == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}
