//go:build linux

package real

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// proc is a daemon of the lab: a child process, waited for by a goroutine
// so that it never stays a zombie (PID 1 here does not reap).
type proc struct {
	name string // "r1/zebra"
	cmd  *exec.Cmd
	done chan struct{}
	err  error // the exit status, once done is closed
	log  string
}

// alive tells whether the process has not exited.
func (p *proc) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// startProc starts argv in namespace ns ("ip netns exec", which execs:
// the daemon is the direct child), with its output appended to logPath.
// The child has its own process group, so a terminal's ^C reaches only
// netmcp, which then stops the daemons in order, and it is killed if
// netmcp dies.
func startProc(name, ns string, argv []string, logPath string) (*proc, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	full := append([]string{"ip", "netns", "exec", ns}, argv...)
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: starting %s: %w", name, strings.Join(argv, " "), err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{}), log: logPath}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// stop sends SIGTERM, waits up to grace, then sends SIGKILL and waits.
func (p *proc) stop(grace time.Duration) error {
	if !p.alive() {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	_ = p.cmd.Process.Kill()
	select {
	case <-p.done:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", p.name, p.cmd.Process.Pid)
	}
}

// waitFile waits until path exists while p runs.
func waitFile(ctx context.Context, p *proc, path string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if !p.alive() {
			return fmt.Errorf("%s exited (%v) before creating %s; see %s: %s", p.name, p.err, path, p.log, tail(p.log))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not create %s within %s; see %s", p.name, path, timeout, p.log)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// run runs argv in namespace ns to completion and returns its output.
func run(ctx context.Context, ns string, argv ...string) ([]byte, error) {
	return runInput(ctx, ns, nil, argv...)
}

// runInput is run with input on the program's standard input.
func runInput(ctx context.Context, ns string, input []byte, argv ...string) ([]byte, error) {
	full := append([]string{"ip", "netns", "exec", ns}, argv...)
	cmd := exec.CommandContext(ctx, full[0], full[1:]...)
	if input != nil {
		cmd.Stdin = bytes.NewReader(input)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out, fmt.Errorf("%s: %v: %s%s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()), strings.TrimSpace(string(out)))
		}
		return out, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	return out, nil
}

// tail returns the last lines of a log file, for an error message.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], " | ")
}
