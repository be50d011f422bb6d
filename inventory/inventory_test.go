package inventory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, src, wantErr string
	}{
		{name: "http and stdio", src: `
domains: [lab.example, example.net.]
devices:
  - {name: r1, url: "http://127.0.0.1:4100/mcp", credentials: {token-file: r1.token}}
  - {name: r2, url: "mcps://10.0.0.2:9514", credentials: {cert-file: c.pem, key-file: k.pem, ca-file: ca.pem}}
  - {name: r3, command: [netmcp, serve, --device, "sim://r3"]}
  - {name: h3, url: "http://127.0.0.1:4103/mcp", role: host, addresses: [10.3.0.10/24, "2001:db8:3::10/64", 10.3.0.11]}
`},
		{name: "bad address", src: "devices: [{name: h1, url: 'https://a/mcp', addresses: [10.0.0.300/24]}]", wantErr: `address "10.0.0.300/24": want an IP address`},
		{name: "inline secret", src: "devices: [{name: r1, url: 'https://a/mcp', credentials: {token: abc}}]", wantErr: "field token not found"},
		{name: "user in url", src: "devices: [{name: r1, url: 'https://admin:pw@a/mcp'}]", wantErr: "user information"},
		{name: "no endpoint", src: "devices: [{name: r1}]", wantErr: "needs url or command"},
		{name: "both endpoints", src: "devices: [{name: r1, url: 'https://a/mcp', command: [x]}]", wantErr: "not both"},
		{name: "bad scheme", src: "devices: [{name: r1, url: 'ftp://a/'}]", wantErr: "scheme"},
		{name: "duplicate", src: "devices: [{name: r1, url: 'https://a/mcp'}, {name: r1, url: 'https://b/mcp'}]", wantErr: "duplicate"},
		{name: "bad name", src: "devices: [{name: 'r 1', url: 'https://a/mcp'}]", wantErr: "bad name"},
		{name: "half a key pair", src: "devices: [{name: r1, url: 'https://a/mcp', credentials: {cert-file: c}}]", wantErr: "go together"},
		{name: "bad env", src: "devices: [{name: r1, url: 'https://a/mcp', credentials: {token-env: 'A-B'}}]", wantErr: "not an environment variable"},
		{name: "empty", src: "devices: []", wantErr: "no devices"},
		{name: "bad domain", src: "domains: ['lab example']\ndevices: [{name: r1, url: 'https://a/mcp'}]", wantErr: "not a DNS name"},
		{name: "domain label ends in a dash", src: "domains: ['lab-.example']\ndevices: [{name: r1, url: 'https://a/mcp'}]", wantErr: "not a DNS name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := Parse([]byte(tc.src))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := []string{inv.Devices[0].Transport(), inv.Devices[1].Transport(), inv.Devices[2].Transport()}; strings.Join(got, ",") != "http,tls-stream,stdio" {
				t.Errorf("transports = %v", got)
			}
			if got := fmt.Sprint(inv.Devices[3].Addrs()); got != "[10.3.0.10 2001:db8:3::10 10.3.0.11]" {
				t.Errorf("h3's addresses = %s", got)
			}
		})
	}
}

func TestSaveLoadAndToken(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r1.token"), []byte("tok-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inv := &Inventory{Name: "lab", Devices: []Device{
		{Name: "r1", URL: "http://127.0.0.1:1/mcp", Dialect: "huawei-vrp", Credentials: Credentials{TokenFile: "r1.token"}},
		{Name: "r2", URL: "http://127.0.0.1:2/mcp", Credentials: Credentials{TokenEnv: "NETMCP_TEST_TOKEN_R2"}},
	}}
	file := filepath.Join(dir, "inventory.yaml")
	if err := Save(file, inv); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stat: %v %v", fi, err)
	}
	got, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	r1, _ := got.Device("r1")
	if tok, err := r1.Credentials.Token(); err != nil || tok != "tok-1" {
		t.Errorf("r1 token = %q, %v", tok, err)
	}
	r2, _ := got.Device("r2")
	if _, err := r2.Credentials.Token(); err == nil || !strings.Contains(err.Error(), "NETMCP_TEST_TOKEN_R2 is not set") {
		t.Errorf("unset env: %v", err)
	}
	t.Setenv("NETMCP_TEST_TOKEN_R2", "tok-2")
	if tok, err := r2.Credentials.Token(); err != nil || tok != "tok-2" {
		t.Errorf("r2 token = %q, %v", tok, err)
	}
	if _, ok := got.Device("r9"); ok {
		t.Error("r9 found")
	}
}
