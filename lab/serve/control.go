package serve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// The control endpoint of a running lab: HTTP on 127.0.0.1 (a random
// port), every request authenticated by a random bearer token. The lab
// writes the address and the token to ControlFile in its state directory,
// readable by its owner only; `netmcp lab fault` reads them there (Dial).

// ControlFile is the name of the control file in a lab's state directory:
// the endpoint's address and bearer token, readable by the lab's owner
// only, present while the lab runs.
const ControlFile = "control.json"

// maxControlBody bounds a control request's body.
const maxControlBody = 64 << 10

// controlInfo is the content of the control file.
type controlInfo struct {
	Address string `json:"address"`
	Token   string `json:"token"`
	PID     int    `json:"pid"`
}

// faultRequest is the body of an add or clear request.
type faultRequest struct {
	// Fault is the fault's words (add), or its id or words (clear).
	Fault string `json:"fault,omitempty"`
	// All clears every fault.
	All bool `json:"all,omitempty"`
}

// faultsReply is the body of every successful reply.
type faultsReply struct {
	Faults []ActiveFault `json:"faults"`
}

// faultLab is what the control endpoint drives: the simulated lab
// (*sim.Lab) and the real one (realFaultLab) both satisfy it.
type faultLab interface {
	// Inject adds a fault and returns it with its id.
	Inject(topology.Fault) (ActiveFault, error)
	// ClearFault removes the fault with that id or those words.
	ClearFault(idOrWords string) (ActiveFault, error)
	// ClearFaults removes every fault.
	ClearFaults()
	// Faults lists the injected faults, oldest first.
	Faults() []ActiveFault
}

// labControl serves a lab's control endpoint.
type labControl struct {
	lab   faultLab
	token string
	file  string
	addr  string
	srv   *http.Server
	done  chan struct{}
	mu    sync.Mutex // one change at a time
}

// startControl starts the control endpoint of lab and writes its control
// file in dir.
func startControl(lab faultLab, dir string) (*labControl, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("lab control endpoint: %w", err)
	}
	c := &labControl{lab: lab, token: hex.EncodeToString(b[:]), file: filepath.Join(dir, ControlFile),
		addr: ln.Addr().String(), done: make(chan struct{})}
	info, _ := json.Marshal(controlInfo{Address: c.addr, Token: c.token, PID: os.Getpid()})
	if err := writePrivate(c.file, info); err != nil {
		ln.Close()
		return nil, fmt.Errorf("lab control file: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/faults", c.list)
	mux.HandleFunc("POST /v1/faults", c.add)
	mux.HandleFunc("POST /v1/faults/clear", c.clear)
	c.srv = &http.Server{Handler: c.auth(mux), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 2 * time.Minute, MaxHeaderBytes: 16 << 10}
	go func() {
		defer close(c.done)
		_ = c.srv.Serve(ln)
	}()
	return c, nil
}

// stop closes the endpoint and removes the control file.
func (c *labControl) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.srv.Shutdown(ctx); err != nil {
		_ = c.srv.Close()
	}
	<-c.done
	_ = os.Remove(c.file)
}

// writePrivate writes a file readable by its owner only, atomically.
func writePrivate(file string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// auth refuses a request without the lab's bearer token (compared in
// constant time).
func (c *labControl) auth(next http.Handler) http.Handler {
	want := []byte("Bearer " + c.token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="netmcp-lab"`)
			replyError(w, http.StatusUnauthorized, errors.New("missing or wrong token (see the lab's "+ControlFile+")"))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxControlBody)
		next.ServeHTTP(w, r)
	})
}

func replyError(w http.ResponseWriter, code int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
}

func reply(w http.ResponseWriter, faults []ActiveFault) {
	if faults == nil {
		faults = []ActiveFault{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(faultsReply{Faults: faults})
}

func readRequest(r *http.Request) (faultRequest, error) {
	var req faultRequest
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("bad request body: %w", err)
	}
	return req, nil
}

func (c *labControl) list(w http.ResponseWriter, _ *http.Request) {
	reply(w, c.lab.Faults())
}

func (c *labControl) add(w http.ResponseWriter, r *http.Request) {
	req, err := readRequest(r)
	if err != nil {
		replyError(w, http.StatusBadRequest, err)
		return
	}
	f, err := topology.ParseFault(req.Fault)
	if err != nil {
		replyError(w, http.StatusBadRequest, err)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	af, err := c.lab.Inject(f)
	if err != nil {
		replyError(w, http.StatusUnprocessableEntity, err)
		return
	}
	reply(w, []ActiveFault{af})
}

func (c *labControl) clear(w http.ResponseWriter, r *http.Request) {
	req, err := readRequest(r)
	if err != nil {
		replyError(w, http.StatusBadRequest, err)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.All {
		before := c.lab.Faults()
		c.lab.ClearFaults()
		reply(w, before)
		return
	}
	if strings.TrimSpace(req.Fault) == "" {
		replyError(w, http.StatusBadRequest, errors.New("name the fault to clear (its id or words) or ask for all"))
		return
	}
	af, err := c.lab.ClearFault(req.Fault)
	if err != nil {
		replyError(w, http.StatusNotFound, err)
		return
	}
	reply(w, []ActiveFault{af})
}
