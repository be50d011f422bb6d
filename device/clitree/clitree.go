// Package clitree reads a configuration printed as indented lines (the
// Cisco-like style of FRR, IOS, IOS-XR and Huawei VRP: a block's lines
// are indented under its header) as a tree of lines, for the drivers that
// diff two configurations block by block.
package clitree

import "strings"

// Node is one line of a configuration and the lines indented under it.
type Node struct {
	// Line is the line without its indentation.
	Line string
	// Kids are the lines indented under it, in order.
	Kids []*Node
}

// Indent is the number of leading spaces of l.
func Indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// Parse groups indented lines under the nearest line above them that is
// indented less, and returns the top-level lines.
func Parse(lines []string) []*Node {
	type frame struct {
		indent int
		n      *Node
	}
	root := &Node{}
	stack := []frame{{-1, root}}
	for _, l := range lines {
		ind := Indent(l)
		for len(stack) > 1 && stack[len(stack)-1].indent >= ind {
			stack = stack[:len(stack)-1]
		}
		n := &Node{Line: strings.TrimSpace(l)}
		parent := stack[len(stack)-1].n
		parent.Kids = append(parent.Kids, n)
		stack = append(stack, frame{ind, n})
	}
	return root.Kids
}

// Index maps each node's line to the node (the last one for a repeated
// line).
func Index(ns []*Node) map[string]*Node {
	m := make(map[string]*Node, len(ns))
	for _, n := range ns {
		m[n.Line] = n
	}
	return m
}
