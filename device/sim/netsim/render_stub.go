package netsim

import "strconv"

func itoa(i int) string { return strconv.Itoa(i) }

// Render returns the text iputils ping would print.
func (o PingOutcome) Render() string { return "" }

// ExitCode is ping's exit status: 0 some reply, 1 none, 2 error.
func (o PingOutcome) ExitCode() int { return 2 }

// Render returns the text traceroute 2.1 would print.
func (o TraceOutcome) Render() string { return "" }

// RenderTracepath returns the text tracepath would print.
func (o TraceOutcome) RenderTracepath() string { return "" }
