// Package gnmiserver serves any device.Driver over gNMI: Capabilities,
// Get, Set (with the Commit extension of gnmi_ext.proto mapped onto the
// driver's confirmed commit) and Subscribe (ONCE, POLL, and STREAM with
// ON_CHANGE and SAMPLE), over TLS or mutual TLS.
//
//	srv := gnmiserver.New(drv, gnmiserver.Options{TLS: tlsConfig})
//	err := srv.Serve(ctx, listener) // until ctx is done
//
// Paths are read in either naming of package wire: origin "openconfig"
// (or none) with bare names, an origin naming the module, or the module
// prefixed to the first element. Get and Set values are JSON_IETF (or
// JSON) of the driver's RFC 7951 trees; CONFIG reads the running
// datastore and STATE, OPERATIONAL and ALL the operational one.
//
// ON_CHANGE is poll-and-diff: the subtree of each subscribed top-level
// node is read every Options.PollInterval (and at once when a driver that
// implements device.Telemetry reports an event: an interface going down, a
// configuration change, a log line such as a BGP session dropping),
// flattened to leaves and compared with the previous reading; changed
// leaves are sent as updates and vanished ones as deletes. One reading per
// top-level node serves every subscription to it.
package gnmiserver

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi/internal/wire"
	"github.com/netmcp/netmcp/yang"
)

// Defaults of Options.
const (
	DefaultPollInterval = 500 * time.Millisecond
	// DefaultRollback is the rollback duration of a Commit extension that
	// gives none (the extension's specification says 10 minutes).
	DefaultRollback = 10 * time.Minute
	// minSampleInterval bounds SAMPLE subscriptions from below.
	minSampleInterval = 10 * time.Millisecond
)

// Options configure a Server.
type Options struct {
	// TLS is the server's TLS configuration (certificates, and ClientCAs
	// with ClientAuth for mutual TLS). Nil serves plaintext gRPC, for
	// tests only.
	TLS *tls.Config
	// PollInterval is how often ON_CHANGE subscriptions read the driver
	// (default DefaultPollInterval).
	PollInterval time.Duration
	// Authenticate, when set, checks the "username" and "password"
	// metadata of every RPC; an error refuses it (Unauthenticated).
	Authenticate func(ctx context.Context, username, password string) error
	// Log receives the server's warnings (default slog.Default()).
	Log *slog.Logger
}

// Server serves one device.Driver over gNMI. Create it with New.
type Server struct {
	gpb.UnimplementedGNMIServer

	drv     device.Driver
	opts    Options
	log     *slog.Logger
	session string // the device.Owner session of gNMI Sets
	schema  *yang.Schema

	setMu   sync.Mutex // one Set at a time
	pending *pendingCommit

	topMu  sync.Mutex
	tops   map[string]string // bare top-level name -> module (openconfig first)
	topsAt time.Time
	hub    *hub
}

// New returns a server for drv. It does not own drv: closing drv is the
// caller's business, after Serve returns.
func New(drv device.Driver, opts Options) *Server {
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	b := make([]byte, 4)
	rand.Read(b)
	s := &Server{drv: drv, opts: opts, log: opts.Log, session: "gnmi-" + hex.EncodeToString(b),
		schema: yang.DefaultSchema()}
	s.hub = newHub(s)
	return s
}

// Serve serves gNMI on l until ctx is done, then stops every RPC and
// returns nil; it closes l. A listener error is returned.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	var opts []grpc.ServerOption
	if s.opts.TLS != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(s.opts.TLS)))
	}
	if s.opts.Authenticate != nil {
		opts = append(opts, grpc.UnaryInterceptor(s.unaryAuth), grpc.StreamInterceptor(s.streamAuth))
	}
	gs := grpc.NewServer(opts...)
	gpb.RegisterGNMIServer(gs, s)
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			gs.Stop()
		case <-done:
		}
	}()
	err := gs.Serve(l)
	close(done)
	s.hub.stopAll()
	if ctx.Err() != nil || errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

func (s *Server) authenticate(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	first := func(k string) string {
		if v := md.Get(k); len(v) > 0 {
			return v[0]
		}
		return ""
	}
	if err := s.opts.Authenticate(ctx, first("username"), first("password")); err != nil {
		return status.Error(codes.Unauthenticated, err.Error())
	}
	return nil
}

func (s *Server) unaryAuth(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := s.authenticate(ctx); err != nil {
		return nil, err
	}
	return h(ctx, req)
}

func (s *Server) streamAuth(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := s.authenticate(ss.Context()); err != nil {
		return err
	}
	return h(srv, ss)
}

// user is the authenticated user of an RPC ("gnmi" without one).
func user(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get("username"); len(v) > 0 && v[0] != "" {
		return v[0]
	}
	return "gnmi"
}

// gnmiVersion is the gNMI version of the protos served.
func gnmiVersion() string {
	v, _ := proto.GetExtension(gpb.File_github_com_openconfig_gnmi_proto_gnmi_gnmi_proto.Options(), gpb.E_GnmiService).(string)
	return v
}

// Capabilities lists the driver's YANG modules and the encodings served.
func (s *Server) Capabilities(ctx context.Context, _ *gpb.CapabilityRequest) (*gpb.CapabilityResponse, error) {
	info := s.drv.Info()
	resp := &gpb.CapabilityResponse{
		SupportedEncodings: []gpb.Encoding{gpb.Encoding_JSON_IETF, gpb.Encoding_JSON},
		GNMIVersion:        gnmiVersion(),
	}
	for _, m := range info.YangModules {
		md := &gpb.ModelData{Name: m}
		if wire.IsOpenConfig(m) {
			md.Organization = "OpenConfig working group"
		} else if strings.HasPrefix(m, "ietf-") {
			md.Organization = "IETF"
		}
		resp.SupportedModels = append(resp.SupportedModels, md)
	}
	return resp, nil
}

// resolve names the module of a bare top-level node name: an OpenConfig
// module for origin "openconfig", any module with a unique such node for
// no origin (OpenConfig first). The driver's top-level nodes are read at
// most once a second and kept.
func (s *Server) resolve(origin, name string) (string, bool) {
	s.topMu.Lock()
	defer s.topMu.Unlock()
	look := func() (string, bool) {
		m, ok := s.tops[name]
		if ok && origin == wire.OriginOpenConfig && !wire.IsOpenConfig(m) {
			return "", false
		}
		return m, ok
	}
	if m, ok := look(); ok {
		return m, true
	}
	if time.Since(s.topsAt) < time.Second {
		return "", false
	}
	s.topsAt = time.Now()
	tops := map[string]string{}
	for _, ds := range []device.Datastore{device.Operational, device.Running} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		v, err := s.drv.Get(ctx, ds, "/")
		cancel()
		m, _ := v.(map[string]any)
		if err != nil || m == nil {
			continue
		}
		for k := range m {
			mod, local, ok := strings.Cut(k, ":")
			if !ok {
				continue
			}
			if prev, dup := tops[local]; dup && (wire.IsOpenConfig(prev) || !wire.IsOpenConfig(mod)) {
				continue
			}
			tops[local] = mod
		}
	}
	s.tops = tops
	return look()
}

// yangPath converts a request's path (with its prefix) to a YANG path.
func (s *Server) yangPath(prefix, p *gpb.Path) (yang.Path, wire.Style, error) {
	yp, style, err := wire.FromGNMI(wire.Join(prefix, p), s.resolve)
	if err != nil {
		return nil, 0, wire.Status(err)
	}
	return yp, style, nil
}

// datastore is the datastore a Get of type t reads.
func datastore(t gpb.GetRequest_DataType) device.Datastore {
	if t == gpb.GetRequest_CONFIG {
		return device.Running
	}
	return device.Operational
}

// Get reads each path from the driver and returns it as one JSON_IETF
// (or JSON) value per path. A path with no data is NotFound; a path the
// driver does not model is InvalidArgument with the draft's code in the
// status details.
func (s *Server) Get(ctx context.Context, req *gpb.GetRequest) (*gpb.GetResponse, error) {
	ietf := true
	switch req.GetEncoding() {
	case gpb.Encoding_JSON_IETF:
	case gpb.Encoding_JSON:
		ietf = false
	default:
		return nil, status.Errorf(codes.Unimplemented, "encoding %s is not supported: use JSON_IETF or JSON", req.GetEncoding())
	}
	for _, e := range req.GetExtension() {
		if e.GetRegisteredExt() == nil && e.GetExt() != nil {
			return nil, status.Errorf(codes.Unimplemented, "extension %T is not supported in Get", e.GetExt())
		}
	}
	paths := req.GetPath()
	if len(paths) == 0 {
		paths = []*gpb.Path{{}}
	}
	ds := datastore(req.GetType())
	resp := &gpb.GetResponse{}
	for _, p := range paths {
		yp, _, err := s.yangPath(req.GetPrefix(), p)
		if err != nil {
			return nil, err
		}
		v, err := s.drv.Get(ctx, ds, wire.Unkeyed(yp).String())
		if err != nil {
			return nil, wire.Status(err)
		}
		val, err := wire.EncodeJSON(v, ietf)
		if err != nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		resp.Notification = append(resp.Notification, &gpb.Notification{
			Timestamp: time.Now().UnixNano(),
			Prefix:    req.GetPrefix(),
			Update:    []*gpb.Update{{Path: p, Val: val}},
		})
	}
	return resp, nil
}
