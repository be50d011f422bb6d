package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// faultsFile keeps a lab's injected faults in its state directory, so a
// lab started again on it knows which configuration differences are
// faults (and how to undo them) and puts its runtime faults back.
const faultsFile = "faults.json"

// savedFault is one fault as kept in faultsFile.
type savedFault struct {
	ID      string           `json:"id"`
	Kind    string           `json:"kind"`
	Devices []string         `json:"devices"`
	Note    string           `json:"note,omitempty"`
	Fault   topology.Fault   `json:"fault"`
	Before  *topology.Device `json:"before,omitempty"`
	After   *topology.Device `json:"after,omitempty"`
}

// savedFaults is the content of faultsFile.
type savedFaults struct {
	Next   int          `json:"next"`
	Faults []savedFault `json:"faults"`
}

// saveFaultsLocked writes the fault book to the state directory (nothing
// without one); l.fb.mu is held.
func (l *Lab) saveFaultsLocked() error {
	if l.opts.StateDir == "" {
		return nil
	}
	sf := savedFaults{Next: l.fb.next, Faults: []savedFault{}}
	for _, r := range l.fb.list {
		s := savedFault{ID: r.ID, Kind: r.Kind, Devices: r.Devices, Note: r.Note, Fault: r.Fault}
		if r.Kind == FaultConfig {
			b, a := r.before, r.after
			s.Before, s.After = &b, &a
		}
		sf.Faults = append(sf.Faults, s)
	}
	data, err := json.MarshalIndent(sf, "", "  ")
	if err != nil {
		return err
	}
	file := filepath.Join(l.opts.StateDir, faultsFile)
	tmp, err := os.CreateTemp(l.opts.StateDir, ".faults-*")
	if err != nil {
		return fmt.Errorf("sim: saving faults: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("sim: saving faults: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("sim: saving faults: %w", err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("sim: saving faults: %w", err)
	}
	return nil
}

// loadFaults reads the fault book a state directory kept: configuration
// faults are recorded (the saved configurations hold them), runtime ones
// put back into the model.
func (l *Lab) loadFaults() error {
	if l.opts.StateDir == "" {
		return nil
	}
	file := filepath.Join(l.opts.StateDir, faultsFile)
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	var sf savedFaults
	if err := json.Unmarshal(data, &sf); err != nil {
		return fmt.Errorf("sim: %s: %w", file, err)
	}
	l.fb.mu.Lock()
	defer l.fb.mu.Unlock()
	var runtime []topology.Fault
	for _, s := range sf.Faults {
		if !strings.HasPrefix(s.ID, "f") {
			return fmt.Errorf("sim: %s: bad fault id %q", file, s.ID)
		}
		if _, err := strconv.Atoi(s.ID[1:]); err != nil {
			return fmt.Errorf("sim: %s: bad fault id %q", file, s.ID)
		}
		rec := &faultRec{ActiveFault: ActiveFault{ID: s.ID, Words: describeFault(s.Fault), Kind: s.Kind,
			Devices: s.Devices, Note: s.Note, Fault: s.Fault}}
		switch s.Kind {
		case FaultConfig:
			if s.Before == nil || s.After == nil || len(s.Devices) != 1 {
				return fmt.Errorf("sim: %s: fault %s has no configuration to undo", file, s.ID)
			}
			rec.before, rec.after = *s.Before, *s.After
		case FaultRuntime:
			runtime = append(runtime, s.Fault)
		default:
			return fmt.Errorf("sim: %s: fault %s of unknown kind %q", file, s.ID, s.Kind)
		}
		l.fb.list = append(l.fb.list, rec)
	}
	l.fb.next = sf.Next
	if len(runtime) > 0 {
		l.mu.Lock()
		err := l.net.SetFaults(runtime)
		if err == nil {
			l.diffStates(false)
		}
		l.mu.Unlock()
		if err != nil {
			return fmt.Errorf("sim: %s: %w", file, err)
		}
	}
	l.scheduleTimedLocked()
	return nil
}
