package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/netmcp/netmcp/d2d/sign"
)

// Parse decodes a report's JSON and refuses anything its signatures would
// not cover, so that what Verify then checks is all the JSON says: a
// member the report does not define, however it is spelt (encoding/json
// would match "Hypothesis" to the hypothesis case-insensitively, leaving
// another "hypothesis" to readers of the file); a member given twice in
// one object; invalid UTF-8; trailing data. Its test is exact: the
// canonical JSON (sign.Canonical) of raw must equal the canonical JSON of
// the Report it decodes to, which is what the signatures cover (but for
// the "signatures" member itself).
func Parse(raw []byte) (Report, error) {
	var r Report
	if !utf8.Valid(raw) {
		return r, errors.New("report: the JSON is not valid UTF-8")
	}
	if err := noDuplicateMembers(raw); err != nil {
		return r, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Report{}, fmt.Errorf("report: not a report: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Report{}, errors.New("report: trailing data after the report")
	}
	got, err := sign.Canonical(json.RawMessage(raw))
	if err != nil {
		return Report{}, fmt.Errorf("report: %w", err)
	}
	want, err := sign.Canonical(r)
	if err != nil {
		return Report{}, fmt.Errorf("report: %w", err)
	}
	if !bytes.Equal(got, want) {
		return Report{}, errors.New("report: the JSON carries content no signature covers (a member spelt otherwise than the report's, or a value that does not decode to itself)")
	}
	return r, nil
}

// noDuplicateMembers refuses JSON in which an object names a member twice
// (names compared after unescaping): decoders disagree on which one wins.
func noDuplicateMembers(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	// One frame per open array or object; an object's frame holds the
	// names seen and whether the next string token is a name.
	type frame struct {
		names  map[string]bool
		isName bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("report: not JSON: %w", err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.names != nil && top.isName {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].names != nil {
					stack[len(stack)-1].isName = true
				}
				continue
			}
			name, _ := tok.(string)
			if top.names[name] {
				return fmt.Errorf("report: member %q is given twice in one object", name)
			}
			top.names[name] = true
			top.isName = false
			continue
		}
		// A value (of an array, or of an object's member).
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{names: map[string]bool{}, isName: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: the next token of an enclosing object is a name.
		if len(stack) > 0 && stack[len(stack)-1].names != nil {
			stack[len(stack)-1].isName = true
		}
	}
}
