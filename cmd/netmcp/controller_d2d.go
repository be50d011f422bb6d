package main

import (
	"fmt"
	"os"

	"github.com/netmcp/netmcp/controller/serve"
)

// enableD2D lets srv accept the agents' D2D reports signed under the CA of
// file (--d2d-ca); with no file, submit_report refuses every report.
func enableD2D(srv *serve.Server, file string) error {
	if file == "" {
		return nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("--d2d-ca: %w", err)
	}
	if err := srv.EnableD2D(pem); err != nil {
		return fmt.Errorf("--d2d-ca %s: %w", file, err)
	}
	return nil
}
