package diag

import (
	"strings"

	"github.com/netmcp/netmcp/internal/lazyre"
)

// TracepathResult is a parsed tracepath or tracepath6 run. Its JSON is
// jc's tracepath schema plus extras.
type TracepathResult struct {
	PMTU        *int           `json:"pmtu"`
	ForwardHops *int           `json:"forward_hops"`
	ReturnHops  *int           `json:"return_hops"`
	Hops        []TracepathHop `json:"hops"`

	// Unrecognized lists the non-empty lines no rule understood (extra).
	Unrecognized []string `json:"unrecognized_lines"`
}

// TracepathHop is one line of tracepath output.
type TracepathHop struct {
	TTL                  *int     `json:"ttl"`
	Guess                bool     `json:"guess"`
	Host                 *string  `json:"host"`
	ReplyMs              *float64 `json:"reply_ms"`
	PMTU                 *int     `json:"pmtu"`
	AsymmetricDifference *int     `json:"asymmetric_difference"`
	Reached              bool     `json:"reached"`
	// Address is the address in parentheses after a host name (extra).
	Address *string `json:"address,omitempty"`
	// Note is a trailing remark such as "pmtu 1400" on its own or an
	// error like "!H" (extra).
	Note *string `json:"note,omitempty"`
}

var (
	reTpTTLHost = lazyre.New(`^\s?(\d+)(\??):\s+(no reply|\S+)(?:\s+\(([^()\s]+)\))?`)
	reTpPMTU    = lazyre.New(`\spmtu\s(\d+)`)
	reTpReply   = lazyre.New(`\s(\d*\.\d*)ms`)
	reTpAsymm   = lazyre.New(`\sasymm\s+(\d+)`)
	reTpReached = lazyre.New(`\sreached`)
	reTpSummary = lazyre.New(`\s+Resume:\s+pmtu\s+(\d+)(?:\s+hops\s+(\d+))?(?:\s+back\s+(\d+))?`)
	reTpNote    = lazyre.New(`\s(![A-Z]+\S*)`)
)

// ParseTracepath parses tracepath or tracepath6 output. Output with no hop
// line and no "Resume:" line is rejected.
func ParseTracepath(text string) (*TracepathResult, error) {
	res := &TracepathResult{Hops: []TracepathHop{}, Unrecognized: []string{}}
	summary := false
	for _, line := range splitLines(text) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if m := reTpTTLHost.Re().FindStringSubmatch(line); m != nil {
			h := TracepathHop{TTL: toInt(m[1]), Guess: m[2] != "", Reached: reTpReached.Re().MatchString(line)}
			if m[3] != "no reply" {
				h.Host = strp(m[3])
			}
			h.Address = strOrNil(m[4])
			if r := reTpReply.Re().FindStringSubmatch(line); r != nil {
				h.ReplyMs = toFloat(r[1])
			}
			if r := reTpPMTU.Re().FindStringSubmatch(line); r != nil {
				h.PMTU = toInt(r[1])
			}
			if r := reTpAsymm.Re().FindStringSubmatch(line); r != nil {
				h.AsymmetricDifference = toInt(r[1])
			}
			if r := reTpNote.Re().FindStringSubmatch(line); r != nil {
				h.Note = strp(r[1])
			}
			res.Hops = append(res.Hops, h)
			continue
		}
		if m := reTpSummary.Re().FindStringSubmatch(line); m != nil {
			summary = true
			res.PMTU, res.ForwardHops, res.ReturnHops = intOrNil(m[1]), intOrNil(m[2]), intOrNil(m[3])
			continue
		}
		res.Unrecognized = append(res.Unrecognized, line)
	}
	if !summary && len(res.Hops) == 0 {
		return nil, parseErr("tracepath", `no hop lines and no "Resume:" line`)
	}
	return res, nil
}
