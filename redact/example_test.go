package redact_test

import (
	"fmt"

	"github.com/netmcp/netmcp/redact"
)

// Example learns the secrets of a device's configuration, then masks the
// configuration and the same secret echoed in CLI output.
func Example() {
	r := redact.New(redact.Options{})
	running := "snmp-server community N0tPublic RO\nusername admin secret 5 $1$ab$cd"
	_ = r.LearnConfig(running, redact.DialectCiscoIOSXR)
	cfg, _ := r.Config(running, redact.DialectCiscoIOSXR)
	fmt.Println(cfg)
	fmt.Println(r.String("% Invalid community N0tPublic from 192.0.2.7"))
	fmt.Println(string(r.JSON([]byte(`{"config":{"name":"admin","password":"pw-1234"}}`))))
	// Output:
	// snmp-server community ****** RO
	// username admin secret 5 ******
	// % Invalid community ****** from 192.0.2.7
	// {"config":{"name":"admin","password":"******"}}
}
