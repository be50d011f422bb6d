package report

// VerifyJSON checks a report's JSON as `netmcp report verify` does: Parse,
// which refuses content no signature covers, then Verify with v. It
// returns the checks done, or the first failure; the report is returned
// whenever it parses, so that one that fails verification can still be
// shown for what it claims.
func VerifyJSON(raw []byte, v BindingVerifier) (Report, []Check, error) {
	r, err := Parse(raw)
	if err != nil {
		return Report{}, nil, err
	}
	checks, err := Verify(r, v)
	return r, checks, err
}

// SignersInPath counts checks per signer, in the order of the report's
// path: what `netmcp report verify` prints ("r1 2, r2 1").
func (r Report) SignersInPath(checks []Check) []SignerCount {
	n := map[string]int{}
	for _, c := range checks {
		n[c.Signer]++
	}
	var out []SignerCount
	for _, p := range r.Path {
		if k, ok := n[p]; ok {
			out = append(out, SignerCount{Signer: p, Checks: k})
			delete(n, p)
		}
	}
	return out
}

// SignerCount is how many signatures of one signer were checked.
type SignerCount struct {
	Signer string
	Checks int
}
