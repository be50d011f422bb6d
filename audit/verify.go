package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Report is the result of Verify.
type Report struct {
	// Records is the number of records that verified (all of them when OK).
	Records int
	// LastSeq and LastHash are those of the last good record.
	LastSeq  uint64
	LastHash string
	// HeadChecked tells whether a head file was found and compared.
	HeadChecked bool
	// Segments is the number of rotated segments verified before the log.
	Segments int
	// FirstSeq is the seq of the first record verified: 1, or more when
	// the oldest segments were removed by retention (Options.MaxSegments).
	FirstSeq uint64
}

// TamperError names the first bad record found by Verify.
type TamperError struct {
	// File is the file holding it when the log has rotated segments (the
	// log or one of them); "" for a log without segments.
	File string
	// Line is the 1-based line number in File (the line after the last
	// record when records were cut from the end).
	Line int
	// Seq is the record's "seq" member when it could be read.
	Seq uint64
	// Reason says what is wrong: edited, deleted, inserted, reordered...
	Reason string
}

// Error implements the error interface.
func (e *TamperError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("audit: %s: line %d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("audit: line %d: %s", e.Line, e.Reason)
}

// Verify reads the log at path, after its rotated segments (Segments),
// oldest first, as one chain: it checks every record's hash, sequence
// number and link to the previous record (the first record of a file
// after a rotation links to the last of the segment before), then the head
// file when present. When the oldest segments were removed by retention,
// the chain starts at the oldest one left (Report.FirstSeq). It returns the
// count of good records and, for the first bad record, a *TamperError;
// other errors are I/O failures.
func Verify(path string) (Report, error) {
	segs, err := Segments(path)
	if err != nil {
		return Report{}, err
	}
	rep := Report{LastHash: Genesis, Segments: len(segs)}
	line := 0
	for i, file := range append(segs, path) {
		if line, err = verifyFile(file, &rep, i == 0 && len(segs) > 0); err != nil {
			var te *TamperError
			if errors.As(err, &te) && len(segs) > 0 {
				te.File = file
			}
			return rep, err
		}
	}
	if rep.FirstSeq == 0 {
		rep.FirstSeq = 1
	}
	return rep, checkHead(path, line, &rep)
}

// verifyFile checks the records of one file against the chain state in
// rep and returns its number of lines. anchor lets the file's first record
// start the chain where it links (the oldest segment left by retention).
func verifyFile(path string, rep *Report, anchor bool) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	return verifyLines(bufio.NewReaderSize(f, 64<<10), path, rep, anchor)
}

// VerifyReader checks a chain read from r, one record a line from the
// first (Genesis) on, as Verify checks a log file without segments or
// head file: a log kept elsewhere than in a file (a replicated stream).
func VerifyReader(r io.Reader) (Report, error) {
	rep := Report{LastHash: Genesis, FirstSeq: 1}
	_, err := verifyLines(bufio.NewReaderSize(r, 64<<10), "", &rep, false)
	return rep, err
}

// verifyLines checks the records read from r against the chain state in
// rep and returns the number of lines; path names the file they come
// from ("" for none: a reordered record is then not looked for).
func verifyLines(r *bufio.Reader, path string, rep *Report, anchor bool) (int, error) {
	line := 0
	for {
		b, err := r.ReadBytes('\n')
		if len(b) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return line, fmt.Errorf("audit: %w", err)
		}
		line++
		if err == io.EOF {
			return line, &TamperError{Line: line, Reason: "incomplete last line (no newline): truncated or appended by hand"}
		}
		if anchor && line == 1 {
			startChain(b, rep)
		}
		if terr := checkLine(b, line, rep); terr != nil {
			if terr.Seq > rep.LastSeq+1 && path != "" {
				explainJump(path, terr, rep.LastSeq+1)
			}
			return line, terr
		}
	}
	return line, nil
}

// startChain makes the chain start at record b (the oldest segment left
// after older ones were removed): its predecessor is taken on trust.
func startChain(b []byte, rep *Report) {
	obj, err := decodeObject(b)
	if err != nil {
		return
	}
	seq, serr := numberMember(obj, "seq")
	prev, _ := obj["prev"].(string)
	if serr != nil || seq <= 1 || prev == "" {
		return
	}
	rep.FirstSeq, rep.LastSeq, rep.LastHash = seq, seq-1, prev
}

// checkLine verifies one record against the chain state in rep and
// advances rep when it is good.
func checkLine(b []byte, line int, rep *Report) *TamperError {
	if len(bytes.TrimSpace(b)) == 0 {
		return &TamperError{Line: line, Reason: "empty line inserted"}
	}
	obj, err := decodeObject(b)
	if err != nil {
		return &TamperError{Line: line, Reason: "not a JSON record: " + err.Error()}
	}
	seq, serr := numberMember(obj, "seq")
	hash, _ := obj["hash"].(string)
	prev, _ := obj["prev"].(string)
	if serr != nil || hash == "" || prev == "" {
		return &TamperError{Line: line, Seq: seq, Reason: "record lacks seq, prev or hash"}
	}
	want, err := canonicalHash(obj)
	if err != nil {
		return &TamperError{Line: line, Seq: seq, Reason: "cannot canonicalise record: " + err.Error()}
	}
	if want != hash {
		return &TamperError{Line: line, Seq: seq, Reason: fmt.Sprintf("record %d was edited: its content hashes to %.12s…, not its recorded hash %.12s…", seq, want, hash)}
	}
	expect := rep.LastSeq + 1
	switch {
	case seq > expect:
		return &TamperError{Line: line, Seq: seq, Reason: fmt.Sprintf("sequence jumps from %d to %d: %d record(s) deleted before this line", rep.LastSeq, seq, seq-expect)}
	case seq < expect:
		return &TamperError{Line: line, Seq: seq, Reason: fmt.Sprintf("sequence goes back from %d to %d: record moved, duplicated or inserted", rep.LastSeq, seq)}
	case prev != rep.LastHash:
		return &TamperError{Line: line, Seq: seq, Reason: fmt.Sprintf("record %d does not chain to the record before it (prev %.12s…, want %.12s…): record inserted or replaced", seq, prev, rep.LastHash)}
	}
	rep.Records++
	rep.LastSeq, rep.LastHash = seq, hash
	return nil
}

// checkHead compares the end of the chain with the head file, if any.
func checkHead(path string, lines int, rep *Report) error {
	b, err := os.ReadFile(path + HeadSuffix)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	var h head
	if err := json.Unmarshal(b, &h); err != nil {
		return &TamperError{Line: lines + 1, Reason: "head file " + path + HeadSuffix + " is unreadable: " + err.Error()}
	}
	rep.HeadChecked = true
	switch {
	case h.Seq > rep.LastSeq:
		return &TamperError{Line: lines + 1, Seq: rep.LastSeq + 1, Reason: fmt.Sprintf("log ends at record %d but its head file records %d: %d record(s) deleted from the end", rep.LastSeq, h.Seq, h.Seq-rep.LastSeq)}
	case h.Seq == rep.LastSeq && h.Hash != rep.LastHash:
		return &TamperError{Line: lines, Seq: rep.LastSeq, Reason: "last record differs from the one recorded in the head file: replaced"}
	}
	// h.Seq < LastSeq: a crash between writing a record and its head; the
	// chain itself is intact.
	return nil
}

// numberMember reads a non-negative integer member of obj.
func numberMember(obj map[string]any, name string) (uint64, error) {
	n, ok := obj[name].(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s is not a number", name)
	}
	return strconv.ParseUint(n.String(), 10, 64)
}

// explainJump looks for the missing record further down the log: when it
// is there the records were reordered, not deleted.
func explainJump(path string, terr *TamperError, missing uint64) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if line <= terr.Line {
			continue
		}
		var r struct {
			Seq uint64 `json:"seq"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Seq == missing {
			terr.Reason = fmt.Sprintf("records reordered: line %d holds record %d but record %d, expected here, is at line %d", terr.Line, terr.Seq, missing, line)
			return
		}
	}
}
