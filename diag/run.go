package diag

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/netmcp/netmcp/netproto"
)

// Errors of Run besides validation (ErrInvalidRequest) and limits (ErrBusy).
var (
	ErrOutputTooLarge = errors.New("diag: output too large")
	ErrToolFailed     = errors.New("diag: tool failed")
)

// DefaultMaxOutput bounds a run's standard output (1 MiB).
const DefaultMaxOutput = 1 << 20

// RunOptions tunes Run.
type RunOptions struct {
	// Key identifies the caller for the per-caller concurrency limit.
	Key string
	// Limiter bounds concurrency (DefaultLimiter when nil).
	Limiter *Limiter
	// OnLine, if set, receives each output line as it arrives.
	OnLine func(line string)
	// MaxOutput bounds standard output (DefaultMaxOutput when 0).
	MaxOutput int
	// Prefix is prepended to the argument vector, e.g.
	// {"ip", "netns", "exec", "lab1"} (tests, lab harnesses). Never user input.
	Prefix []string
	// Raw leaves the output unparsed (Result.Parsed nil, no parse error),
	// for callers that parse it themselves, such as device drivers.
	Raw bool
}

// Result is the outcome of Run.
type Result struct {
	Tool     string        `json:"tool"`
	Argv     []string      `json:"argv"`
	ExitCode int           `json:"exitCode"`
	Output   string        `json:"output"`
	Stderr   string        `json:"stderr,omitempty"`
	Duration time.Duration `json:"durationNs"`
	// Parsed is the structured result: *PingResult, *TracerouteResult,
	// *TracepathResult, DigResult, or mtr's own JSON (map[string]any).
	Parsed any `json:"parsed"`
}

// Run validates req, runs the real tool (never through a shell) under the
// request's time limit and ctx, streams lines to opts.OnLine, and parses
// the output. The exit codes of ResultExit are results; other non-zero
// codes are ErrToolFailed.
// On cancellation or time-out the whole process group is killed.
func Run(ctx context.Context, req Request, opts RunOptions) (*Result, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	lim := opts.Limiter
	if lim == nil {
		lim = DefaultLimiter
	}
	release, err := lim.Acquire(opts.Key)
	if err != nil {
		return nil, err
	}
	defer release()
	maxOut := opts.MaxOutput
	if maxOut <= 0 {
		maxOut = DefaultMaxOutput
	}

	argv := req.Argv()
	full := append(append([]string{}, opts.Prefix...), argv...)
	ctx, cancel := context.WithTimeout(ctx, req.TimeLimit())
	defer cancel()
	cmd := Command(ctx, full)
	stderr := LimitedBuffer{Max: 64 << 10}
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrToolFailed, argv[0], err)
	}
	var out bytes.Buffer
	tooLarge := false
	rd := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, rerr := rd.ReadString('\n')
		if out.Len()+len(line) > maxOut {
			tooLarge = true
			cancel()
			_, _ = io.Copy(io.Discard, rd)
			break
		}
		out.WriteString(line)
		if line != "" && opts.OnLine != nil {
			opts.OnLine(strings.TrimRight(line, "\r\n"))
		}
		if rerr != nil {
			break
		}
	}
	werr := cmd.Wait()
	res := &Result{Tool: req.Tool, Argv: argv, Output: out.String(), Stderr: stderr.String(), Duration: time.Since(start)}
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case tooLarge:
		return res, fmt.Errorf("%w: more than %d bytes from %s; the process was killed", ErrOutputTooLarge, maxOut, argv[0])
	case errors.Is(ctx.Err(), context.Canceled):
		return res, fmt.Errorf("%s cancelled; the process was killed: %w", argv[0], ctx.Err())
	case ctx.Err() != nil:
		return res, netproto.Errorf(netproto.CodeTimeout, "%s did not finish within %s; the process was killed", argv[0], req.TimeLimit())
	}
	if werr != nil && !ResultExit(req.Tool, res.ExitCode) {
		msg := strings.TrimSpace(res.Stderr)
		if msg == "" {
			msg = strings.TrimSpace(res.Output)
		}
		return res, fmt.Errorf("%w: %s exited with code %d: %s", ErrToolFailed, argv[0], res.ExitCode, truncate(firstLines(msg, 3), 300))
	}
	if opts.Raw {
		return res, nil
	}
	if req.Tool == "mtr" {
		var v map[string]any
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			return res, fmt.Errorf("%w: mtr: invalid JSON: %v", ErrToolFailed, err)
		}
		res.Parsed = v
		return res, nil
	}
	p, err := Parse(req.Tool, res.Output)
	if err != nil {
		if msg := strings.TrimSpace(res.Stderr); msg != "" {
			return res, fmt.Errorf("%w (stderr: %s)", err, truncate(firstLines(msg, 3), 300))
		}
		return res, err
	}
	res.Parsed = p
	return res, nil
}

// ResultExit reports whether a non-zero exit code of tool still carries a
// result to parse: ping 1 (some or all replies missing), dig 9 (no server
// reached), tracepath 1 (destination not reached).
func ResultExit(tool string, code int) bool {
	switch tool {
	case "ping":
		return code == 1 // some or all replies missing
	case "dig":
		return code == 9 // no servers could be reached
	case "tracepath":
		return code == 1 // destination not reached
	}
	return false
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}

// LimitedBuffer keeps the first Max bytes written to it and sets Over
// when more were written. Its writes never fail, so a command writing to
// it runs to its end.
type LimitedBuffer struct {
	bytes.Buffer
	Max  int
	Over bool
}

// Write keeps what fits of p and reports all of p written.
func (b *LimitedBuffer) Write(p []byte) (int, error) {
	room := b.Max - b.Len()
	if len(p) > room {
		b.Over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
