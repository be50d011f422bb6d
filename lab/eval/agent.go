package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/netmcp/netmcp/inventory"
)

// InventoryEnv is the environment variable that gives an agent the path
// of the lab's inventory file.
const InventoryEnv = "NETMCP_INVENTORY"

// InventoryArg, as a whole argument or inside one, is replaced by the path
// of the lab's inventory file; an agent command without it gets the path
// as its last argument.
const InventoryArg = "{inventory}"

// SplitCommand splits a command line into an argv, with no shell ever
// involved, by these rules: words are separated by unquoted spaces, tabs
// and newlines; inside single quotes every character is literal; inside
// double quotes every character is literal except that \" and \\ stand for
// " and \; outside quotes a backslash makes the next character literal.
// Nothing is expanded: $, *, ~, |, ;, &, <, > and backticks are ordinary
// characters of a word. An unterminated quote, a trailing backslash or an
// empty command is an error.
func SplitCommand(s string) ([]string, error) {
	var out []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				out, inWord = append(out, w.String()), false
				w.Reset()
			}
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("eval: agent command ends with a backslash")
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("eval: agent command has an unterminated single quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i, inWord = i+1+j, true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				w.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, errors.New("eval: agent command has an unterminated double quote")
			}
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, w.String())
	}
	if len(out) == 0 {
		return nil, errors.New("eval: empty agent command")
	}
	return out, nil
}

// Answer is a diagnoser's answer in NIKA's fields; RootCauses, NIKA's
// submission format, is optional in an agent's output (see Submission).
type Answer struct {
	IsAnomaly     bool        `json:"is_anomaly"`
	FaultyDevices []string    `json:"faulty_devices"`
	RootCauseName []string    `json:"root_cause_name"`
	RootCauses    []RootCause `json:"root_causes,omitempty"`
}

// RootCause is one entry of NIKA's submission format: a faulty resource
// (a device) and its fault name.
type RootCause struct {
	ResourceID string `json:"resource_id"`
	FaultType  string `json:"fault_type"`
}

// stringList reads a JSON string or list of strings (NIKA's answers give
// either for faulty_devices and root_cause_name); null is empty.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = nil
		if one != "" {
			*l = []string{one}
		}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a string or a list of strings, got %s", b)
	}
	*l = many
	return nil
}

// ParseAnswer reads an agent's answer: one JSON object with is_anomaly,
// faulty_devices and root_cause_name (each of the last two a list or a
// single string), and optionally root_causes. Text before the object
// (an agent's log lines on stdout) is skipped: the last line that starts
// with '{' begins the answer.
func ParseAnswer(out []byte) (Answer, error) {
	out = bytes.TrimSpace(out)
	if k := bytes.LastIndex(out, []byte("\n{")); k >= 0 && !json.Valid(out) {
		out = out[k+1:]
	}
	var raw struct {
		IsAnomaly     *bool       `json:"is_anomaly"`
		FaultyDevices stringList  `json:"faulty_devices"`
		RootCauseName stringList  `json:"root_cause_name"`
		RootCauses    []RootCause `json:"root_causes"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		return Answer{}, fmt.Errorf("eval: agent answer is not NIKA's JSON: %w", err)
	}
	if raw.IsAnomaly == nil {
		return Answer{}, errors.New("eval: agent answer has no is_anomaly")
	}
	a := Answer{IsAnomaly: *raw.IsAnomaly, FaultyDevices: sortedSet(raw.FaultyDevices), RootCauseName: sortedSet(raw.RootCauseName), RootCauses: raw.RootCauses}
	return a, nil
}

// sortedSet returns the non-empty strings of s, sorted, without repeats
// (never nil).
func sortedSet(s []string) []string {
	out := []string{}
	for _, x := range s {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// maxAgentOutput bounds what is read of an agent's stdout and stderr.
const maxAgentOutput = 1 << 20

// runAgent runs the agent command on the lab: its inventory written to
// dir/inventory.yaml, given as InventoryEnv and as an argument, and the
// answer read from its stdout. It runs in this process's working
// directory, and is killed when ctx ends.
func runAgent(ctx context.Context, argv []string, inv *inventory.Inventory, dir string) (Answer, error) {
	file := filepath.Join(dir, "inventory.yaml")
	if err := inventory.Save(file, inv); err != nil {
		return Answer{}, err
	}
	args, placed := make([]string, 0, len(argv)+1), false
	for _, a := range argv[1:] {
		if strings.Contains(a, InventoryArg) {
			a, placed = strings.ReplaceAll(a, InventoryArg, file), true
		}
		args = append(args, a)
	}
	if !placed {
		args = append(args, file)
	}
	cmd := exec.CommandContext(ctx, argv[0], args...)
	cmd.Env = append(os.Environ(), InventoryEnv+"="+file)
	cmd.WaitDelay = 2 * time.Second
	ownGroup(cmd)
	var stdout, stderr limitedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return Answer{}, fmt.Errorf("eval: agent: %w", ctx.Err())
	}
	if err != nil {
		return Answer{}, fmt.Errorf("eval: agent: %w%s", err, tail(stderr.b.Bytes()))
	}
	return ParseAnswer(stdout.b.Bytes())
}

// limitedBuffer keeps the first maxAgentOutput bytes written to it.
type limitedBuffer struct{ b bytes.Buffer }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxAgentOutput - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

var _ io.Writer = (*limitedBuffer)(nil)

// tail is the end of an agent's stderr, for an error message.
func tail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	if len(b) > 400 {
		b = b[len(b)-400:]
	}
	return ": " + string(b)
}
