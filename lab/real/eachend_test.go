//go:build linux

package real

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

// TestEachEnd: injecting a link fault is all or nothing (a failing end
// is cleared with the ends done before it, the last done first), and
// clearing goes on past a failing end. No root needed: the ends are
// stand-ins and apply records what it is asked.
func TestEachEnd(t *testing.T) {
	ends := []linkEnd{
		{&planDevice{Dev: topology.Device{Name: "r2"}}, &planIface{Topo: "a"}},
		{&planDevice{Dev: topology.Device{Name: "r3"}}, &planIface{Topo: "b"}},
		{&planDevice{Dev: topology.Device{Name: "r4"}}, &planIface{Topo: "c"}},
	}
	tests := []struct {
		name    string
		on      bool
		fail    string // "+X": applying end X fails; "-X": clearing it fails
		want    []string
		wantErr []string // substrings of the error; none: no error
	}{
		{name: "inject all", on: true, want: []string{"+a", "+b", "+c"}},
		{name: "clear all", on: false, want: []string{"-a", "-b", "-c"}},
		{name: "first end fails", on: true, fail: "+a", want: []string{"+a", "-a"}, wantErr: []string{"apply a"}},
		{name: "last end fails: all undone, last done first", on: true, fail: "+c",
			want: []string{"+a", "+b", "+c", "-c", "-b", "-a"}, wantErr: []string{"apply c"}},
		{name: "undoing fails too", on: true, fail: "+c,-a",
			want: []string{"+a", "+b", "+c", "-c", "-b", "-a"}, wantErr: []string{"apply c", "undoing the ends already done", "clear a"}},
		{name: "the failing end's own clear error is dropped", on: true, fail: "+b,-b",
			want: []string{"+a", "+b", "-b", "-a"}, wantErr: []string{"apply b"}},
		{name: "clear goes on past a failure", on: false, fail: "-a",
			want: []string{"-a", "-b", "-c"}, wantErr: []string{"clear a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fails := strings.Split(tt.fail, ",")
			var got []string
			err := eachEnd(ends, tt.on, func(e linkEnd, on bool) error {
				op, verb := "-", "clear"
				if on {
					op, verb = "+", "apply"
				}
				got = append(got, op+e.i.Topo)
				if slices.Contains(fails, op+e.i.Topo) {
					return errors.New(verb + " " + e.i.Topo)
				}
				return nil
			})
			if !slices.Equal(got, tt.want) {
				t.Errorf("calls %v, want %v", got, tt.want)
			}
			if (err == nil) != (len(tt.wantErr) == 0) {
				t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if err != nil && strings.Contains(tt.fail, "+b,-b") && strings.Contains(err.Error(), "clear b") {
				t.Errorf("error %q reports the failing end's own clear", err)
			}
		})
	}
}
