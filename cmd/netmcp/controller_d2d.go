package main

import (
	"fmt"
	"os"

	"github.com/netmcp/netmcp/controller/serve"
)

// enableD2D lets srv accept the agents' D2D reports signed under the CA of
// file (--d2d-ca); with no file, submit_report refuses every report.
func enableD2D(srv *serve.Server, file string) error {
	pem, err := readD2DCA(file)
	if err != nil || pem == nil {
		return err
	}
	if err := srv.EnableD2D(pem); err != nil {
		return fmt.Errorf("--d2d-ca %s: %w", file, err)
	}
	return nil
}

// readD2DCA reads the agents' CA (--d2d-ca): submit_report and the console
// check the D2D reports' signatures against it (nil without a file).
func readD2DCA(file string) ([]byte, error) {
	if file == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--d2d-ca: %w", err)
	}
	return pem, nil
}
