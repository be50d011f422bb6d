package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// ReadFile returns the records of one log file (not its rotated segments,
// see Segments), in order, as written: it decodes, it does not verify the
// chain (see Verify).
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return out, fmt.Errorf("audit: %s line %d: %w", path, line, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("audit: %s: %w", path, err)
	}
	return out, nil
}
