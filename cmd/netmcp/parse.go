package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/netmcp/netmcp/diag"
	"github.com/spf13/cobra"
)

// maxParseInput bounds what "netmcp parse" reads (16 MiB).
const maxParseInput = 16 << 20

// newParseCmd builds "netmcp parse".
func newParseCmd() *cobra.Command {
	var pretty, stream bool
	cmd := &cobra.Command{
		Use:   "parse ping|traceroute|tracepath|dig [FILE]",
		Short: "Parse diagnostic tool output (FILE or stdin) into JSON (jc's schema, enriched)",
		Long: "Parse the output of ping, traceroute, tracepath or dig (FILE, or stdin) into one JSON object in\n" +
			"jc's schema for that command, with the fields jc drops kept as extras.\n\n" +
			"With --stream (ping only), read the output line by line as it arrives and print one JSON object\n" +
			"per reply, timeout or error, then the summary, in jc's streaming schema (jc --ping-s):\n" +
			"  ping -c 5 192.0.2.1 | netmcp parse ping --stream",
		Args: cobra.RangeArgs(1, 2),
		// Reads a file and prints: nothing to clean up on SIGINT.
		Annotations: map[string]string{plainSignals: "yes"},
		RunE: func(cmd *cobra.Command, args []string) error {
			var in io.Reader = cmd.InOrStdin()
			if len(args) == 2 && args[1] != "-" {
				f, err := os.Open(args[1])
				if err != nil {
					return withExit(2, err)
				}
				defer f.Close()
				in = f
			}
			if stream {
				if args[0] != "ping" && args[0] != "ping6" {
					return withExit(2, fmt.Errorf("--stream: only ping has a streaming schema, not %s", args[0]))
				}
				return streamPing(in, cmd.OutOrStdout())
			}
			data, err := io.ReadAll(io.LimitReader(in, maxParseInput+1))
			if err != nil {
				return withExit(2, err)
			}
			if len(data) > maxParseInput {
				return withExit(2, fmt.Errorf("input larger than %d bytes", maxParseInput))
			}
			res, err := diag.Parse(args[0], string(data))
			if err != nil {
				return withExit(1, err)
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			if pretty {
				enc.SetIndent("", "  ")
			}
			return enc.Encode(res)
		},
	}
	cmd.Flags().BoolVar(&pretty, "pretty", false, "indent the JSON")
	cmd.Flags().BoolVar(&stream, "stream", false, "ping only: one JSON object per line as it arrives (jc's streaming schema)")
	return cmd
}

// maxStreamLine bounds one line of streamed ping output (1 MiB).
const maxStreamLine = 1 << 20

// streamPing parses ping output from in line by line, writing each event
// to out as one line of JSON as soon as the line that completes it
// arrives, and the summary at the end.
func streamPing(in io.Reader, out io.Writer) error {
	enc := json.NewEncoder(out)
	ps := diag.NewPingStream()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), maxStreamLine)
	for sc.Scan() {
		ev, err := ps.Line(sc.Text())
		if err != nil {
			return withExit(1, err)
		}
		if ev != nil {
			if err := enc.Encode(ev); err != nil {
				return withExit(2, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return withExit(2, fmt.Errorf("reading ping output: %w", err))
	}
	if ev := ps.Close(); ev != nil {
		return enc.Encode(ev)
	}
	return nil
}
