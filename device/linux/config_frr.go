//go:build linux

package linux

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/netmcp/netmcp/device/clitree"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
)

// FRR's configuration as the linux driver keeps it: the lines of "show
// running-config" that carry configuration, indentation kept (see
// frrLines), one string per line.

// maxFRRLine bounds one FRR configuration line.
const maxFRRLine = 1024

// maxFRRPasses bounds the rounds of changes that make FRR run a target
// configuration (a removed BGP neighbour takes its other lines with it:
// the next round puts back what the target still has).
const maxFRRPasses = 3

// frrLines keeps the lines of FRR's printed configuration that carry
// configuration: no banners, blank lines, "!" separators, block ends
// ("exit", "exit-address-family", "end"), empty blocks or the version
// lines FRR writes itself ("frr version", "frr defaults"). Each line is
// its indentation followed by its words separated by one space.
func frrLines(text string) []string {
	var out []string
	prev := ""
	for _, raw := range strings.Split(strings.ReplaceAll(text, "\r", ""), "\n") {
		l := normLine(raw)
		t := strings.TrimSpace(l)
		last := prev
		prev = l
		// An empty interface block ("interface eth0" directly followed by
		// "exit") configures nothing; an empty "router ospf" does.
		if isBlockEnd(t) && len(out) > 0 && out[len(out)-1] == last && clitree.Indent(last) == clitree.Indent(l) && emptiedBlock(strings.TrimSpace(last)) {
			out = out[:len(out)-1]
			continue
		}
		switch {
		case t == "", strings.HasPrefix(t, "!"), isBlockEnd(t), t == "end",
			t == "Building configuration...", t == "Current configuration:",
			strings.HasPrefix(t, "frr version "), strings.HasPrefix(t, "frr defaults "),
			t == "service integrated-vtysh-config":
			continue
		}
		out = append(out, l)
	}
	return out
}

// isBlockEnd tells whether a trimmed line leaves a configuration block.
func isBlockEnd(t string) bool {
	return t == "exit" || strings.HasPrefix(t, "exit-")
}

// normLine keeps a line's leading spaces and joins its words with one space.
func normLine(l string) string {
	l = strings.TrimRight(l, " \t")
	ind := clitree.Indent(l)
	return strings.Repeat(" ", ind) + strings.Join(strings.Fields(l), " ")
}

// checkFRRLine refuses what must never reach vtysh as one line: control
// characters (a newline would be a second command), overlong input, and
// the commands that change vtysh's mode, write files or run programs.
func checkFRRLine(line string) error {
	t := strings.TrimSpace(line)
	if t == "" {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "empty FRR configuration line")
	}
	if len(line) > maxFRRLine {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "FRR configuration line longer than %d bytes", maxFRRLine)
	}
	for _, r := range line {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return netproto.Errorf(netproto.CodeConfigIncompatible, "FRR configuration line %q contains a control character (%U): one command per line", truncate(line, 80), r)
		}
	}
	switch w := strings.ToLower(strings.Fields(t)[0]); w {
	case "configure", "conf", "end", "exit", "quit", "write", "copy", "do", "show", "start-shell", "terminal", "clear", "debug", "undebug", "ping", "traceroute", "ssh", "telnet", "watchfrr":
		return netproto.Errorf(netproto.CodeConfigIncompatible,
			"%q is not a configuration line (%q changes vtysh's mode, writes files or runs a command); send FRR configuration lines only, then commit", truncate(t, 80), w)
	}
	return nil
}

// frrOp is one configuration command entered in its context (the block
// headers above it, outermost first).
type frrOp struct {
	ctx  []string
	line string
	neg  bool // a negation ("no X"): retried shorter if FRR refuses it
}

// in returns line entered in op's context: the context's lines, then line.
func (op frrOp) in(line string) []string {
	return append(append([]string(nil), op.ctx...), line)
}

// frrOps are the commands that turn configuration cur into target: lines
// only in cur are negated in their context (a removed "interface" block is
// emptied, since a kernel interface cannot be removed; other removed
// blocks are negated whole, "no router bgp 65001"), lines only in target
// are entered with the lines under them. The comparison is by block, so
// the order FRR prints lines in does not matter.
func frrOps(cur, target []string) []frrOp {
	var out []frrOp
	var walk func(ctx []string, c, t []*clitree.Node)
	var add func(ctx []string, n *clitree.Node)
	add = func(ctx []string, n *clitree.Node) {
		out = append(out, frrOp{ctx: ctx, line: n.Line})
		inner := append(append([]string(nil), ctx...), n.Line)
		for _, k := range n.Kids {
			add(inner, k)
		}
	}
	walk = func(ctx []string, c, t []*clitree.Node) {
		ci, ti := clitree.Index(c), clitree.Index(t)
		inner := func(n *clitree.Node) []string { return append(append([]string(nil), ctx...), n.Line) }
		for _, n := range c {
			if _, keep := ti[n.Line]; keep {
				continue
			}
			if len(n.Kids) == 0 || emptiedBlock(n.Line) {
				if len(n.Kids) == 0 {
					out = append(out, frrOp{ctx: ctx, line: negateFRR(n.Line), neg: true})
				} else {
					walk(inner(n), n.Kids, nil)
				}
				continue
			}
			out = append(out, frrOp{ctx: ctx, line: negateFRR(n.Line), neg: true})
		}
		for _, n := range t {
			old, had := ci[n.Line]
			switch {
			case !had:
				add(ctx, n)
			case !sameFRRTree(old.Kids, n.Kids):
				walk(inner(n), old.Kids, n.Kids)
			}
		}
	}
	walk(nil, withoutEmptyIfaces(clitree.Parse(cur)), withoutEmptyIfaces(clitree.Parse(target)))
	return out
}

// withoutEmptyIfaces drops top-level interface blocks without lines: FRR
// does not print them, and they configure nothing.
func withoutEmptyIfaces(ns []*clitree.Node) []*clitree.Node {
	return slices.DeleteFunc(ns, func(n *clitree.Node) bool { return len(n.Kids) == 0 && emptiedBlock(n.Line) })
}

// emptiedBlock tells whether a removed block is emptied rather than
// negated: FRR refuses "no interface eth0" for a kernel interface.
func emptiedBlock(header string) bool {
	return strings.HasPrefix(header, "interface ") || strings.HasPrefix(header, "line ")
}

func sameFRRTree(a, b []*clitree.Node) bool {
	if len(a) != len(b) {
		return false
	}
	ib := clitree.Index(b)
	for _, n := range a {
		m, ok := ib[n.Line]
		if !ok || !sameFRRTree(n.Kids, m.Kids) {
			return false
		}
	}
	return true
}

// negateFRR is the line that removes line.
func negateFRR(line string) string {
	if rest, ok := strings.CutPrefix(line, "no "); ok {
		return rest
	}
	return "no " + line
}

// frrArgv is the vtysh command line for the driver's FRR.
func (d *Driver) frrArgv(args ...string) []string {
	argv := []string{"vtysh"}
	if d.netns != "" {
		argv = append(argv, "-N", d.netns)
	}
	return append(argv, args...)
}

// runFRR runs a vtysh command line (never a shell) and returns its exit
// code and its output without vtysh's complaint about a missing
// vtysh.conf; err is set only when vtysh could not run to completion.
func (d *Driver) runFRR(ctx context.Context, argv []string) (code int, out string, err error) {
	ctx, cancel := context.WithTimeout(ctx, ExecTimeout)
	defer cancel()
	cmd := diag.Command(ctx, argv)
	buf := diag.LimitedBuffer{Max: ExecMaxOutput}
	cmd.Stdout, cmd.Stderr = &buf, &buf
	runErr := cmd.Run()
	var kept []string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "vtysh.conf") || strings.TrimSpace(l) == "" {
			continue
		}
		kept = append(kept, strings.TrimRight(l, " \r"))
	}
	out = strings.Join(kept, "\n")
	switch {
	case ctx.Err() != nil:
		return -1, out, fmt.Errorf("linux: vtysh: %w", ctx.Err())
	case runErr != nil && cmd.ProcessState == nil:
		return -1, out, fmt.Errorf("linux: vtysh: %w", runErr)
	}
	return cmd.ProcessState.ExitCode(), out, nil
}

// readFRR returns the lines of FRR's running configuration.
func (d *Driver) readFRR(ctx context.Context) ([]string, error) {
	code, out, err := d.runFRR(ctx, d.frrArgv("-c", "show running-config"))
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, fmt.Errorf("linux: vtysh show running-config: exit %d: %s", code, truncate(out, 300))
	}
	return frrLines(out), nil
}

// checkFRR runs FRR's own check of configuration lines ("vtysh --dryrun
// -f FILE": every line must be a command FRR knows, in its context) and
// gives -32084 with FRR's words, naming the refused lines.
func (d *Driver) checkFRR(ctx context.Context, lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	f, err := os.CreateTemp("", "netmcp-frr-check-*.conf")
	if err != nil {
		return fmt.Errorf("linux: FRR check: %w", err)
	}
	defer os.Remove(f.Name())
	_, werr := f.WriteString(strings.Join(lines, "\n") + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("linux: FRR check: %w", werr)
	}
	code, out, err := d.runFRR(ctx, d.frrArgv("--dryrun", "-f", filepath.Clean(f.Name())))
	if err != nil {
		return err
	}
	if code == 0 {
		return nil
	}
	var msgs []string
	for _, l := range strings.Split(out, "\n") {
		// "line 2: % Unknown command[4]: bogus line here"
		var n int
		if _, err := fmt.Sscanf(l, "line %d:", &n); err == nil && n >= 1 && n <= len(lines) {
			_, rest, _ := strings.Cut(l, ":")
			msgs = append(msgs, fmt.Sprintf("%q: %s", strings.TrimSpace(lines[n-1]), strings.TrimSpace(rest)))
			continue
		}
		msgs = append(msgs, strings.TrimSpace(l))
	}
	return netproto.Errorf(netproto.CodeConfigIncompatible, "FRR's check (vtysh --dryrun) refuses the configuration: %s", truncate(strings.Join(msgs, "; "), 600))
}

// enterFRR enters lines in configuration mode through one vtysh call,
// which stops at the first line FRR refuses (the lines before it stay in
// effect). The error is -32084 with FRR's message.
func (d *Driver) enterFRR(ctx context.Context, lines []string) error {
	args := []string{"-c", "configure terminal"}
	for _, l := range lines {
		args = append(args, "-c", l)
	}
	code, out, err := d.runFRR(ctx, d.frrArgv(args...))
	if err != nil {
		return err
	}
	if code != 0 {
		if out == "" {
			out = fmt.Sprintf("vtysh exited with status %d", code)
		}
		return netproto.Errorf(netproto.CodeConfigIncompatible, "FRR refused the configuration: %s", truncate(out, 600))
	}
	return nil
}

// script flattens ops into one configuration-mode script: each op's
// context is entered from the top ("exit" back to the configuration node
// between contexts is not needed: vtysh falls back to the parent nodes).
func script(ops []frrOp) []string {
	var out []string
	var cur []string
	for _, op := range ops {
		if !slices.Equal(cur, op.ctx) {
			if len(cur) > 0 {
				out = append(out, "end", "configure terminal")
			}
			out = append(out, op.ctx...)
			cur = op.ctx
		}
		out = append(out, op.line)
	}
	return out
}

// setFRR makes FRR run the configuration target (frrLines form): the
// changes from its current configuration, in rounds until nothing is
// left to change. A round is one vtysh call; if FRR refuses a line of it,
// the round's commands are entered one by one, a refused negation retried
// without its last words ("no description TEXT" -> "no description"). It
// returns an error naming what still differs. cur is FRR's configuration
// as the caller has just read it, nil to have it read.
func (d *Driver) setFRR(ctx context.Context, cur, target []string) error {
	var lastErr error
	for pass := 0; ; pass++ {
		if pass > 0 || cur == nil {
			var err error
			if cur, err = d.readFRR(ctx); err != nil {
				return err
			}
		}
		ops := frrOps(cur, target)
		if len(ops) == 0 {
			return nil
		}
		if pass == maxFRRPasses {
			var need []string
			for _, op := range ops {
				need = append(need, strings.Join(op.in(op.line), " / "))
			}
			msg := fmt.Sprintf("FRR's configuration still differs from the target after %d rounds; it would need: %s", maxFRRPasses, truncate(strings.Join(need, "; "), 400))
			if lastErr != nil {
				msg += fmt.Sprintf(" (%v)", lastErr)
			}
			return netproto.Errorf(netproto.CodeConfigIncompatible, "%s", msg)
		}
		if err := d.enterFRR(ctx, script(ops)); err == nil {
			continue
		}
		lastErr = nil
		for _, op := range ops {
			err := d.enterFRR(ctx, op.in(op.line))
			for shorter := op.line; err != nil && op.neg; {
				words := strings.Fields(shorter)
				if len(words) < 3 || words[0] != "no" {
					break
				}
				shorter = strings.Join(words[:len(words)-1], " ")
				err = d.enterFRR(ctx, op.in(shorter))
			}
			if err != nil && lastErr == nil {
				lastErr = err
			}
		}
	}
}
