package eval_test

import (
	"slices"
	"testing"

	"github.com/netmcp/netmcp/lab/eval"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "agent", want: []string{"agent"}},
		{in: "  python3  agent.py\t--model x \n", want: []string{"python3", "agent.py", "--model", "x"}},
		{in: `agent 'two words' "and \"three\" \\ here"`, want: []string{"agent", "two words", `and "three" \ here`}},
		{in: `agent 'it''s' a\ b \'`, want: []string{"agent", "its", "a b", "'"}},
		{in: `agent "$HOME" *.py a|b ;rm >x`, want: []string{"agent", "$HOME", "*.py", "a|b", ";rm", ">x"}},
		{in: `agent "a\nb"`, want: []string{"agent", `a\nb`}},
		{in: `agent '' ""`, want: []string{"agent", "", ""}},
		{in: `agent --inv={inventory}`, want: []string{"agent", "--inv={inventory}"}},
		{in: "", err: true},
		{in: "   ", err: true},
		{in: `agent 'open`, err: true},
		{in: `agent "open`, err: true},
		{in: `agent "open\"`, err: true},
		{in: `agent \`, err: true},
	} {
		got, err := eval.SplitCommand(tc.in)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want eval.Answer
		err  bool
	}{
		{in: `{"is_anomaly": true, "faulty_devices": ["r2", "r1", "r2"], "root_cause_name": ["link_down"]}`,
			want: eval.Answer{IsAnomaly: true, FaultyDevices: []string{"r1", "r2"}, RootCauseName: []string{"link_down"}}},
		{in: `{"is_anomaly": true, "faulty_devices": "r1", "root_cause_name": "link_down"}`,
			want: eval.Answer{IsAnomaly: true, FaultyDevices: []string{"r1"}, RootCauseName: []string{"link_down"}}},
		{in: `{"is_anomaly": false, "faulty_devices": null, "root_cause_name": ""}`,
			want: eval.Answer{FaultyDevices: []string{}, RootCauseName: []string{}}},
		{in: "step 1\nstep 2 {\n{\"is_anomaly\": false}\n",
			want: eval.Answer{FaultyDevices: []string{}, RootCauseName: []string{}}},
		{in: `{"is_anomaly": true, "faulty_devices": ["h1"], "root_cause_name": ["host_crash"], "root_causes": [{"resource_id": "h1", "fault_type": "host_crash"}]}`,
			want: eval.Answer{IsAnomaly: true, FaultyDevices: []string{"h1"}, RootCauseName: []string{"host_crash"},
				RootCauses: []eval.RootCause{{ResourceID: "h1", FaultType: "host_crash"}}}},
		{in: `{"faulty_devices": ["r1"]}`, err: true},
		{in: `{"is_anomaly": true, "faulty_devices": 3}`, err: true},
		{in: `no answer`, err: true},
		{in: ``, err: true},
	} {
		got, err := eval.ParseAnswer([]byte(tc.in))
		if (err != nil) != tc.err {
			t.Errorf("ParseAnswer(%q): error %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err == nil && (got.IsAnomaly != tc.want.IsAnomaly || !slices.Equal(got.FaultyDevices, tc.want.FaultyDevices) ||
			!slices.Equal(got.RootCauseName, tc.want.RootCauseName) || !slices.Equal(got.RootCauses, tc.want.RootCauses)) {
			t.Errorf("ParseAnswer(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}
