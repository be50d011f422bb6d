package diag

import (
	"strings"
	"time"
	"unicode"

	"github.com/netmcp/netmcp/internal/lazyre"
)

// DigResult is a parsed dig run: one DigQuery per answer dig printed
// (several for "dig a b" or "+trace"-like outputs). Its JSON is jc's dig
// schema (a list) plus extras.
type DigResult []*DigQuery

// DigQuery is one dig answer (jc's schema; Errors and Warnings are extras).
type DigQuery struct {
	ID               *int         `json:"id"`
	Opcode           *string      `json:"opcode"`
	Status           *string      `json:"status"`
	Flags            []string     `json:"flags"`
	QueryNum         *int         `json:"query_num"`
	AnswerNum        *int         `json:"answer_num"`
	AuthorityNum     *int         `json:"authority_num"`
	AdditionalNum    *int         `json:"additional_num"`
	OptPseudosection *DigOpt      `json:"opt_pseudosection,omitempty"`
	Question         *DigQuestion `json:"question,omitempty"`
	Answer           []DigRecord  `json:"answer,omitempty"`
	Authority        []DigRecord  `json:"authority,omitempty"`
	Additional       []DigRecord  `json:"additional,omitempty"`
	AXFR             []DigRecord  `json:"axfr,omitempty"`
	QueryTime        *int         `json:"query_time"`
	Server           *string      `json:"server"`
	When             *string      `json:"when"`
	WhenEpoch        *int64       `json:"when_epoch"`
	WhenEpochUTC     *int64       `json:"when_epoch_utc"`
	Rcvd             *int         `json:"rcvd"`
	Size             *string      `json:"size,omitempty"`
	QuerySize        *int         `json:"query_size,omitempty"`
	// Errors are dig's ";; ..." error lines, e.g. "communications error to
	// 192.0.2.9#53: timed out" or "connection timed out; no servers could
	// be reached" (extra).
	Errors []string `json:"errors,omitempty"`
	// NoServers is true when dig could reach no server (exit code 9).
	NoServers bool `json:"no_servers_reached,omitempty"`
}

// DigOpt is the OPT pseudosection (EDNS).
type DigOpt struct {
	EDNS   *DigEDNS `json:"edns,omitempty"`
	Cookie *string  `json:"cookie,omitempty"`
	NSID   *string  `json:"nsid,omitempty"`
	// Other holds the other options by lower-case name, e.g. "ede" (extra).
	Other map[string]string `json:"other,omitempty"`
}

// DigEDNS is the EDNS line of the OPT pseudosection.
type DigEDNS struct {
	Version *int     `json:"version"`
	Flags   []string `json:"flags"`
	UDP     *int     `json:"udp"`
}

// DigQuestion is the question section.
type DigQuestion struct {
	Name  string `json:"name"`
	Class string `json:"class"`
	Type  string `json:"type"`
}

// DigRecord is one resource record.
type DigRecord struct {
	Name  string `json:"name"`
	Class string `json:"class"`
	Type  string `json:"type"`
	TTL   *int   `json:"ttl"`
	Data  string `json:"data"`
}

// reDigNSID reads a quoted NSID; only NSID values holding `("` reach it.
var reDigNSID = lazyre.New(`\("(.*)"\)\s*$`)

var digClasses = map[string]bool{"IN": true, "CH": true, "HS": true, "CS": true, "ANY": true, "NONE": true, "CLASS": true}

// ParseDig parses dig output: every section, several queries, the OPT
// pseudosection, AXFR, "+noall +answer", and connection failures. Output
// with nothing dig-like is rejected.
func ParseDig(text string) (DigResult, error) {
	var res DigResult
	var cur *DigQuery
	section := ""
	seen := false
	entry := func() *DigQuery {
		if cur == nil {
			cur = &DigQuery{}
			res = append(res, cur)
		}
		return cur
	}
	for _, line := range splitLines(text) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if s := digSectionHeader(line); s != "" {
			section = s
			continue
		}
		switch {
		case strings.HasPrefix(line, ";; Got answer:"):
			section = ""
			seen = true
			continue
		case strings.HasPrefix(line, "; <<>> "):
			seen = true
			if strings.Contains(strings.ToLower(line), " axfr ") {
				section = "axfr"
			}
			continue
		case strings.HasPrefix(line, ";; ->>HEADER<<-"):
			seen = true
			section = "header"
			cur = &DigQuery{}
			res = append(res, cur)
			if opcode, status, id, ok := digHeader(line); ok {
				cur.Opcode, cur.Status, cur.ID = strp(opcode), strp(status), toInt(id)
			}
			continue
		case strings.HasPrefix(line, ";; flags:"):
			section = "flags"
			q := entry()
			if m, ok := scanDigFlags(line); ok {
				q.Flags = strings.Fields(m.flags)
				if q.Flags == nil {
					q.Flags = []string{}
				}
				q.QueryNum, q.AnswerNum, q.AuthorityNum, q.AdditionalNum = toInt(m.query), toInt(m.answer), toInt(m.authority), toInt(m.additional)
			}
			continue
		case strings.HasPrefix(line, ";; Query time:"):
			seen = true
			section = "footer"
			v, _ := strings.CutPrefix(line, ";; Query time:")
			entry().QueryTime = toInt(strings.Fields(v + " x")[0])
			continue
		case strings.HasPrefix(line, ";; QUERY SIZE:"):
			v, _ := strings.CutPrefix(line, ";; QUERY SIZE:")
			entry().QuerySize = toInt(v)
			continue
		}
		if section == "footer" {
			q := entry()
			switch {
			case strings.HasPrefix(line, ";; SERVER:"):
				q.Server = strp(strings.TrimSpace(strings.TrimPrefix(line, ";; SERVER:")))
				continue
			case strings.HasPrefix(line, ";; WHEN:"):
				w := strings.TrimSpace(strings.TrimPrefix(line, ";; WHEN:"))
				q.When = strp(w)
				q.WhenEpoch, q.WhenEpochUTC = digWhen(w)
				continue
			case strings.HasPrefix(line, ";; MSG SIZE  rcvd:"):
				q.Rcvd = toInt(strings.TrimPrefix(line, ";; MSG SIZE  rcvd:"))
				continue
			case strings.HasPrefix(line, ";; XFR size:"):
				q.Size = strp(strings.TrimSpace(strings.TrimPrefix(line, ";; XFR size:")))
				continue
			}
		}
		if strings.HasPrefix(line, ";; ") && digErrorLine(line) {
			seen = true
			q := entry()
			msg := strings.TrimPrefix(line, ";; ")
			q.Errors = append(q.Errors, msg)
			if strings.Contains(msg, "no servers could be reached") {
				q.NoServers = true
			}
			continue
		}
		if strings.HasPrefix(line, ";") {
			switch section {
			case "opt":
				digOpt(entry(), line)
			case "question":
				f := strings.Fields(strings.TrimPrefix(line, ";"))
				if len(f) >= 3 {
					entry().Question = &DigQuestion{Name: f[0], Class: f[1], Type: f[2]}
				}
			}
			continue
		}
		rr, ok := digRecord(line)
		if !ok {
			return nil, parseErr("dig", "not a resource record: %q", truncate(line, 80))
		}
		seen = true
		q := entry()
		switch section {
		case "axfr":
			q.AXFR = append(q.AXFR, rr)
		case "authority":
			rr.Data = unquote(rr.Data)
			q.Authority = append(q.Authority, rr)
		case "additional":
			rr.Data = unquote(rr.Data)
			q.Additional = append(q.Additional, rr)
		default: // "answer", or "" for "+noall +answer"
			rr.Data = unquote(rr.Data)
			q.Answer = append(q.Answer, rr)
		}
	}
	if !seen {
		return nil, parseErr("dig", "no dig header, answer or resource record")
	}
	if res == nil {
		res = DigResult{}
	}
	return res, nil
}

// digErrorLine recognises dig's error and warning lines.
func digErrorLine(line string) bool {
	for _, s := range []string{"connection timed out", "no servers could be reached", "communications error", "connection refused", "network unreachable", "host unreachable", "Warning:", "ERROR:", "reply from unexpected source", "Transfer failed", "SERVFAIL reply from", "UDP setup", "BADCOOKIE"} {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

// digRecord parses "name ttl class type data" like jc (the data's
// surrounding quotes removed for answers, as jc does).
func digRecord(line string) (DigRecord, bool) {
	f := strings.Fields(line)
	if len(f) < 4 {
		return DigRecord{}, false
	}
	ttl := toInt(f[1])
	if ttl == nil || !digClasses[strings.ToUpper(f[2])] && !strings.HasPrefix(f[2], "CLASS") {
		return DigRecord{}, false
	}
	data := ""
	if len(f) > 4 {
		// the rest of the line after the fourth field, as split(maxsplit=4);
		// fields end at the same white space strings.Fields splits on.
		rest := line
		for i := 0; i < 4; i++ {
			rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
			rest = rest[strings.IndexFunc(rest, unicode.IsSpace):]
		}
		data = strings.TrimSpace(rest)
	}
	return DigRecord{Name: f[0], TTL: ttl, Class: f[2], Type: f[3], Data: data}, true
}

func digOpt(q *DigQuery, line string) {
	if q.OptPseudosection == nil {
		q.OptPseudosection = &DigOpt{}
	}
	o := q.OptPseudosection
	body := strings.TrimSpace(strings.TrimPrefix(line, ";"))
	key, val, _ := strings.Cut(body, ":")
	val = strings.TrimSpace(val)
	switch key {
	case "EDNS":
		parts := strings.Split(strings.ReplaceAll(body, ",", " "), ";")
		e := &DigEDNS{Flags: []string{}}
		if f := strings.Fields(parts[0]); len(f) >= 3 {
			e.Version = toInt(f[2])
			if len(f) > 4 {
				e.Flags = f[4:]
			}
		}
		if len(parts) > 1 {
			if f := strings.Fields(parts[len(parts)-1]); len(f) > 0 {
				e.UDP = toInt(f[len(f)-1])
			}
		}
		o.EDNS = e
	case "COOKIE":
		if f := strings.Fields(val); len(f) > 0 {
			o.Cookie = strp(f[0])
		}
	case "NSID":
		nsid := val
		if strings.Contains(val, `("`) {
			if m := reDigNSID.Re().FindStringSubmatch(val); m != nil {
				nsid = m[1]
			}
		}
		o.NSID = strp(nsid)
	default:
		if o.Other == nil {
			o.Other = map[string]string{}
		}
		o.Other[strings.ToLower(key)] = val
	}
}

// digWhen converts dig's WHEN time like jc: when_epoch reads it as local
// time (ignoring the zone name), when_epoch_utc is set only for UTC.
func digWhen(w string) (naive, utc *int64) {
	f := strings.Fields(w)
	zone := ""
	if len(f) == 6 {
		zone = f[4]
		f = append(f[:4], f[5])
	}
	if len(f) != 5 {
		return nil, nil
	}
	s := strings.Join(f, " ")
	t, err := time.ParseInLocation("Mon Jan 2 15:04:05 2006", s, time.Local)
	if err != nil {
		return nil, nil
	}
	n := t.Unix()
	naive = &n
	if zone == "UTC" {
		u, err := time.ParseInLocation("Mon Jan 2 15:04:05 2006", s, time.UTC)
		if err == nil {
			v := u.Unix()
			utc = &v
		}
	}
	return naive, utc
}

// unquote removes the quotes around a record's data, as jc does.
func unquote(s string) string {
	if len(s) >= 2 && strings.HasPrefix(s, `"`) && strings.HasSuffix(s, `"`) {
		return s[1 : len(s)-1]
	}
	return s
}

// digSectionHeaders are the lines that open a section of a dig answer.
var digSectionHeaders = []struct{ prefix, section string }{
	{";; OPT PSEUDOSECTION:", "opt"},
	{";; QUESTION SECTION:", "question"},
	{";; ANSWER SECTION:", "answer"},
	{";; AUTHORITY SECTION:", "authority"},
	{";; ADDITIONAL SECTION:", "additional"},
}

// digSectionHeader returns the section line opens, or "".
func digSectionHeader(line string) string {
	for _, h := range digSectionHeaders {
		if strings.HasPrefix(line, h.prefix) {
			return h.section
		}
	}
	return ""
}
