package topology

import "testing"

func TestSplitEnd(t *testing.T) {
	tests := []struct {
		in, dev, ifn string
		ok           bool
	}{
		{"r1:GigabitEthernet0/0/0/0", "r1", "GigabitEthernet0/0/0/0", true},
		{"r1:a:b", "r1", "a:b", true},
		{"r1", "", "", false},
		{":Gi0", "", "", false},
		{"r1:", "", "", false},
		{"", "", "", false},
	}
	for _, tc := range tests {
		dev, ifn, ok := SplitEnd(tc.in)
		if dev != tc.dev || ifn != tc.ifn || ok != tc.ok {
			t.Errorf("SplitEnd(%q) = %q, %q, %v; want %q, %q, %v", tc.in, dev, ifn, ok, tc.dev, tc.ifn, tc.ok)
		}
	}
}
