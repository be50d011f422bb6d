package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/netmcp/netmcp/diag"
	"github.com/spf13/cobra"
)

// newDiagCmd builds "netmcp diag" with one subcommand per tool.
func newDiagCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "diag",
		Short: "Run a diagnostic locally (ping, traceroute, tracepath, dig, mtr) and parse its output",
	}
	for _, tool := range diag.RunTools {
		root.AddCommand(diagCommand(tool))
	}
	return root
}

// diagCommand builds "netmcp diag <tool> DESTINATION" with the options the
// tool's request allows.
func diagCommand(tool string) *cobra.Command {
	var req diag.Request
	var asJSON, pretty bool
	cmd := &cobra.Command{
		Use:   tool + " DESTINATION",
		Short: "Run " + tool + " locally; live lines on stdout (progress on a terminal's stderr), or the parsed JSON with --json",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Tool, req.Destination = tool, args[0]
			if err := req.Validate(); err != nil {
				return withExit(2, err)
			}
			stderr := cmd.ErrOrStderr()
			live := !asJSON
			tty := isTerminal(stderr)
			start := time.Now()
			n := 0
			opts := diag.RunOptions{Key: "cli"}
			opts.OnLine = func(line string) {
				n++
				if live {
					fmt.Fprintln(cmd.OutOrStdout(), line)
				}
				if tty {
					fmt.Fprintf(stderr, "\r\033[K[%s %d lines, %.1fs / limit %s]", tool, n, time.Since(start).Seconds(), req.TimeLimit())
				}
			}
			res, err := diag.Run(cmd.Context(), req, opts)
			if tty {
				fmt.Fprint(stderr, "\r\033[K")
			}
			if err != nil {
				code := 1
				if errors.Is(err, diag.ErrInvalidRequest) {
					code = 2
				}
				return withExit(code, err)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				if pretty {
					enc.SetIndent("", "  ")
				}
				return enc.Encode(res.Parsed)
			}
			if res.ExitCode != 0 {
				fmt.Fprintf(stderr, "%s exited with code %d\n", tool, res.ExitCode)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print the parsed JSON instead of the live output")
	f.BoolVar(&pretty, "pretty", false, "indent the JSON")
	f.BoolVarP(&req.IPv4, "ipv4", "4", false, "force IPv4")
	f.BoolVarP(&req.IPv6, "ipv6", "6", false, "force IPv6")
	f.StringVar(&req.Source, "source", "", "source IP address")
	f.IntVar(&req.Timeout, "timeout", 0, "seconds to wait for each reply (default 2)")
	switch tool {
	case "ping":
		f.IntVarP(&req.Count, "count", "c", 0, "probes (default 4)")
		f.IntVar(&req.IntervalMs, "interval-ms", 0, "milliseconds between probes (default 1000)")
		f.IntVarP(&req.PacketSize, "size", "s", 0, "payload bytes")
		f.BoolVar(&req.DontFragment, "dont-fragment", false, "set DF")
	case "traceroute", "tracepath", "mtr":
		f.IntVarP(&req.MaxHops, "max-hops", "m", 0, "hop limit (default 30)")
		f.IntVar(&req.PacketSize, "size", 0, "packet bytes")
		f.BoolVar(&req.Resolve, "resolve", false, "print host names")
		if tool == "traceroute" {
			f.BoolVar(&req.DontFragment, "dont-fragment", false, "set DF")
		}
		if tool == "mtr" {
			f.IntVarP(&req.Count, "count", "c", 0, "cycles (default 4)")
		}
	case "dig":
		f.StringVarP(&req.QueryType, "type", "t", "", "record type (default A)")
		f.StringVar(&req.Server, "server", "", "DNS server IP address")
	}
	return cmd
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
