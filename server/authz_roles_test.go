package server_test

import (
	"strings"
	"testing"

	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
)

// TestDefaultLocalRoles: the stdio user (who started the server) is an
// operator unless told otherwise, while unauthenticated loopback HTTP peers
// stay viewers; an unknown role is refused at start.
func TestDefaultLocalRoles(t *testing.T) {
	r1 := simR1(t)
	tests := []struct {
		name    string
		opts    server.SecurityOptions
		want    string // the stdio identity's roles, or the error
		wantErr bool
	}{
		{"defaults", server.SecurityOptions{LocalUser: "alice"}, policy.RoleOperator, false},
		{"stdio as viewer", server.SecurityOptions{LocalUser: "alice", StdioRole: policy.RoleViewer}, policy.RoleViewer, false},
		{"stdio with no role", server.SecurityOptions{LocalUser: "alice", StdioRole: server.NoRole}, "", false},
		{"unknown stdio role", server.SecurityOptions{StdioRole: "wizard"}, `stdio role "wizard"`, true},
		{"unknown local role", server.SecurityOptions{LocalRole: "wizard"}, `local role "wizard"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := server.New(r1, server.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			sec, err := s.Secure(tt.opts)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Secure error = %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(sec.LocalIdentity().Roles, ","); got != tt.want {
				t.Fatalf("stdio roles = %q, want %q", got, tt.want)
			}
		})
	}
}
