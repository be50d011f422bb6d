package diag

import "strings"

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

// ParseTracepath parses tracepath or tracepath6 output. Output with no hop
// line and no "Resume:" line is rejected.
func ParseTracepath(text string) (*TracepathResult, error) {
	res := &TracepathResult{Hops: []TracepathHop{}, Unrecognized: []string{}}
	summary := false
	for _, line := range splitLines(text) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if m, ok := scanTracepathHop(line); ok {
			h := TracepathHop{TTL: toInt(m.ttl), Guess: m.guess != "", Reached: tracepathReached(line)}
			if m.host != "no reply" {
				h.Host = strp(m.host)
			}
			h.Address = strOrNil(m.address)
			if r, ok := tracepathReply(line); ok {
				h.ReplyMs = toFloat(r)
			}
			if r, ok := tracepathPMTU(line); ok {
				h.PMTU = toInt(r)
			}
			if r, ok := tracepathAsymm(line); ok {
				h.AsymmetricDifference = toInt(r)
			}
			if r, ok := tracepathNote(line); ok {
				h.Note = strp(r)
			}
			res.Hops = append(res.Hops, h)
			continue
		}
		if m, ok := scanTracepathSummary(line); ok {
			summary = true
			res.PMTU, res.ForwardHops, res.ReturnHops = toInt(m.pmtu), toInt(m.hops), toInt(m.back)
			continue
		}
		res.Unrecognized = append(res.Unrecognized, line)
	}
	if !summary && len(res.Hops) == 0 {
		return nil, parseErr("tracepath", `no hop lines and no "Resume:" line`)
	}
	return res, nil
}
