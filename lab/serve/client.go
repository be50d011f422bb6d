package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Control is a client of a running lab's control endpoint: what `netmcp
// lab fault` uses to change a lab started by `netmcp lab up`.
type Control struct {
	info controlInfo
	hc   *http.Client
}

// Dial reads the control file of the lab whose state directory is dir
// (see StateDir). The directory and the file must be the caller's and
// writable by no one else, and the endpoint must be on loopback.
func Dial(dir string) (*Control, error) {
	for _, p := range []string{dir, filepath.Join(dir, ControlFile)} {
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no running lab in %s (no %s: start one with `netmcp lab up`, with the same --state-dir)", dir, ControlFile)
		}
		if err != nil {
			return nil, err
		}
		if err := checkPrivate(p, st); err != nil {
			return nil, err
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, ControlFile))
	if err != nil {
		return nil, err
	}
	var info controlInfo
	if err := json.Unmarshal(b, &info); err != nil || info.Address == "" || info.Token == "" {
		return nil, fmt.Errorf("%s: not a lab control file", filepath.Join(dir, ControlFile))
	}
	if host, _, err := net.SplitHostPort(info.Address); err != nil || !net.ParseIP(host).IsLoopback() {
		return nil, fmt.Errorf("%s: the control address %q is not on loopback", filepath.Join(dir, ControlFile), info.Address)
	}
	return &Control{info: info, hc: &http.Client{Timeout: 2 * time.Minute}}, nil
}

// Address is the endpoint's host:port.
func (c *Control) Address() string { return c.info.Address }

// List returns the injected faults, oldest first.
func (c *Control) List(ctx context.Context) ([]ActiveFault, error) {
	return c.do(ctx, http.MethodGet, "/v1/faults", nil)
}

// Add injects the fault of words ("NAME TARGET [key=value ...]") and
// returns it with its id.
func (c *Control) Add(ctx context.Context, words string) ([]ActiveFault, error) {
	return c.do(ctx, http.MethodPost, "/v1/faults", faultRequest{Fault: words})
}

// Clear clears the fault with that id (f1) or those words and returns it.
func (c *Control) Clear(ctx context.Context, idOrWords string) ([]ActiveFault, error) {
	return c.do(ctx, http.MethodPost, "/v1/faults/clear", faultRequest{Fault: idOrWords})
}

// ClearAll clears every fault and returns those that were injected.
func (c *Control) ClearAll(ctx context.Context) ([]ActiveFault, error) {
	return c.do(ctx, http.MethodPost, "/v1/faults/clear", faultRequest{All: true})
}

// do sends one request and decodes the reply's faults.
func (c *Control) do(ctx context.Context, method, path string, body any) ([]ActiveFault, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+c.info.Address+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.info.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("lab control endpoint %s: %w (is the lab still running?)", c.info.Address, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			return nil, errors.New(e.Error)
		}
		return nil, fmt.Errorf("lab control endpoint: %s", resp.Status)
	}
	var out faultsReply
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("lab control endpoint: bad reply: %w", err)
	}
	return out.Faults, nil
}
