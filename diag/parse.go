package diag

import "fmt"

// Tools lists the tools Parse accepts (also as ping6, traceroute6 and
// tracepath6); Run accepts RunTools.
var Tools = []string{"ping", "traceroute", "tracepath", "dig"}

// Parse parses the output of tool ("ping", "traceroute", "tracepath" or
// "dig"). The result is *PingResult, *TracerouteResult, *TracepathResult
// or DigResult.
func Parse(tool, text string) (any, error) {
	switch tool {
	case "ping", "ping6":
		return ParsePing(text)
	case "traceroute", "traceroute6":
		return ParseTraceroute(text)
	case "tracepath", "tracepath6":
		return ParseTracepath(text)
	case "dig":
		return ParseDig(text)
	}
	return nil, fmt.Errorf("diag: unknown tool %q (want ping, traceroute, tracepath or dig)", tool)
}
