package device_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/device"
)

type nullDriver struct{ name string }

func (d nullDriver) Info() device.Info { return device.Info{Name: d.name} }
func (nullDriver) Get(context.Context, device.Datastore, string) (any, error) {
	return nil, device.ErrNotFound
}
func (nullDriver) Exec(context.Context, string) (string, error) { return "", nil }
func (nullDriver) Close() error                                 { return nil }

func init() {
	device.Register("nulltest", func(_ context.Context, u *url.URL, opts device.Options) (device.Driver, error) {
		return nullDriver{name: u.Host + "|" + opts.Params["k"]}, nil
	})
}

func TestOpen(t *testing.T) {
	tests := []struct {
		url     string
		want    string // Info().Name, or the error's substring
		wantErr bool
	}{
		{"nulltest://r9", "r9|v", false},
		{"r1", "has no scheme", true},
		{"nosuch://r1", `unknown scheme "nosuch"`, true},
		{"nulltest://%zz", "device URL", true},
	}
	for _, tt := range tests {
		d, err := device.Open(context.Background(), tt.url, device.Options{Params: map[string]string{"k": "v"}})
		if tt.wantErr {
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open(%q) error = %v, want it to contain %q", tt.url, err, tt.want)
			}
			continue
		}
		if err != nil || d.Info().Name != tt.want {
			t.Errorf("Open(%q) = %v, %v; want driver %q", tt.url, d, err, tt.want)
		}
	}
	found := false
	for _, s := range device.Schemes() {
		found = found || s == "nulltest"
	}
	if !found {
		t.Fatalf("Schemes() = %v lacks nulltest", device.Schemes())
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("second Register of a scheme did not panic")
		}
	}()
	device.Register("nulltest", nil)
}

// TestOpenRedacts: a device URL that fails, to parse or to name a known
// scheme, is shown without its user part.
func TestOpenRedacts(t *testing.T) {
	for _, tc := range []struct {
		url, want string
	}{
		{"nosuch://admin:" + secretValue + "@r1", `"nosuch://xxxxx@r1": unknown scheme`},
		{"snmp2://" + secretValue + "@r1", `"snmp2://xxxxx@r1"`},
		{"ssh://admin:" + secretValue + "/x@r1:22", `"ssh://xxxxx@r1:22" does not parse`},
		{"ssh://admin:" + secretValue + "@r1:port", `"ssh://xxxxx@r1:port" does not parse`},
		{"admin:" + secretValue + "@r1", `"xxxxx@r1"`},
	} {
		_, err := device.Open(context.Background(), tc.url, device.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), secretValue) {
			t.Errorf("Open(%q) error %v, want one containing %q and no secret", tc.url, err, tc.want)
		}
	}
}
