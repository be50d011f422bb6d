package diag

import (
	"net/netip"
	"strconv"
)

// Argv returns the argument vector (program first) that runs the validated
// request r. It never involves a shell; the destination comes last, after
// option parsing has been ended where the tool supports "--".
func (r *Request) Argv() []string {
	fam := func(a []string) []string {
		if r.IPv4 {
			return append(a, "-4")
		}
		if r.IPv6 {
			return append(a, "-6")
		}
		return a
	}
	itoa := strconv.Itoa
	switch r.Tool {
	case "ping":
		a := fam([]string{"ping", "-n"})
		a = append(a, "-c", itoa(r.Count), "-i", strconv.FormatFloat(float64(r.IntervalMs)/1000, 'f', -1, 64), "-W", itoa(r.Timeout))
		if r.PacketSize > 0 {
			a = append(a, "-s", itoa(r.PacketSize))
		}
		if r.DontFragment {
			a = append(a, "-M", "do")
		}
		if r.TTL > 0 {
			a = append(a, "-t", itoa(r.TTL))
		}
		if r.Source != "" {
			a = append(a, "-I", r.Source)
		}
		return append(a, "--", r.Destination)
	case "traceroute":
		a := fam([]string{"traceroute"})
		if !r.Resolve {
			a = append(a, "-n")
		}
		a = append(a, "-m", itoa(r.MaxHops), "-w", itoa(r.Timeout), "-q", "3")
		if r.DontFragment {
			a = append(a, "-F")
		}
		if r.Source != "" {
			a = append(a, "-s", r.Source)
		}
		a = append(a, "--", r.Destination)
		if r.PacketSize > 0 {
			a = append(a, itoa(r.PacketSize))
		}
		return a
	case "tracepath":
		a := fam([]string{"tracepath"})
		if !r.Resolve {
			a = append(a, "-n")
		}
		a = append(a, "-m", itoa(r.MaxHops))
		if r.PacketSize > 0 {
			a = append(a, "-l", itoa(r.PacketSize))
		}
		return append(a, "--", r.Destination)
	case "dig":
		a := fam([]string{"dig"})
		if r.Server != "" {
			a = append(a, "@"+r.Server)
		}
		if r.Source != "" {
			a = append(a, "-b", r.Source)
		}
		a = append(a, "+time="+itoa(r.Timeout), "+tries=1")
		if _, err := netip.ParseAddr(r.Destination); err == nil && (r.QueryType == "PTR" || r.QueryType == "A") {
			return append(a, "-x", r.Destination)
		}
		return append(a, "-t", r.QueryType, "-q", r.Destination)
	case "mtr":
		a := fam([]string{"mtr", "--json", "-c", itoa(r.Count), "-m", itoa(r.MaxHops), "-Z", itoa(r.Timeout)})
		if !r.Resolve {
			a = append(a, "-n")
		}
		if r.PacketSize > 0 {
			a = append(a, "-s", itoa(r.PacketSize))
		}
		if r.Source != "" {
			a = append(a, "-a", r.Source)
		}
		return append(a, "--", r.Destination)
	}
	return nil
}
