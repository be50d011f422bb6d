package gnmiserver_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/gnmi/proto/gnmi_ext"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
	"github.com/netmcp/netmcp/device/gnmi/gnmitest"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/pki"
)

const ifName = "GigabitEthernet0/0/0"

type fixture struct {
	lab *sim.Lab
	r1  *sim.Driver
	tg  *gnmitest.Target
	c   gpb.GNMIClient
}

// start serves the simulator's r1 and connects a raw gNMI client with the
// test PKI's client certificate.
func start(t *testing.T) *fixture {
	t.Helper()
	topo, err := sim.LoadTopology("")
	if err != nil {
		t.Fatal(err)
	}
	lab, err := sim.NewLab(topo, sim.LabOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	r1, err := lab.Device("r1")
	if err != nil {
		t.Fatal(err)
	}
	tg := gnmitest.Start(t, r1, gnmiserver.Options{PollInterval: 100 * time.Millisecond})
	caPEM, _ := os.ReadFile(tg.CAFile)
	cert, _ := os.ReadFile(tg.ClientCert)
	key, _ := os.ReadFile(tg.ClientKey)
	tc, err := pki.ClientTLSConfig(caPEM, cert, key, "localhost")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(tg.Addr, grpc.WithTransportCredentials(credentials.NewTLS(tc)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &fixture{lab: lab, r1: r1, tg: tg, c: gpb.NewGNMIClient(conn)}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func ifPath(leaf ...string) *gpb.Path {
	p := &gpb.Path{Origin: "openconfig", Elem: []*gpb.PathElem{{Name: "interfaces"}, {Name: "interface", Key: map[string]string{"name": ifName}}}}
	for _, l := range leaf {
		p.Elem = append(p.Elem, &gpb.PathElem{Name: l})
	}
	return p
}

func commitExt(id string, action any) []*gnmi_ext.Extension {
	c := &gnmi_ext.Commit{Id: id}
	switch a := action.(type) {
	case time.Duration:
		c.Action = &gnmi_ext.Commit_Commit{Commit: &gnmi_ext.CommitRequest{RollbackDuration: durationpb.New(a)}}
	case string:
		switch a {
		case "confirm":
			c.Action = &gnmi_ext.Commit_Confirm{Confirm: &gnmi_ext.CommitConfirm{}}
		case "cancel":
			c.Action = &gnmi_ext.Commit_Cancel{Cancel: &gnmi_ext.CommitCancel{}}
		}
	}
	return []*gnmi_ext.Extension{{Ext: &gnmi_ext.Extension_Commit{Commit: c}}}
}

func descUpdate(v string) []*gpb.Update {
	b, _ := json.Marshal(v)
	return []*gpb.Update{{Path: ifPath("config", "description"), Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: b}}}}
}

func (f *fixture) desc(t *testing.T) any {
	v, err := f.r1.Get(context.Background(), device.Running, "/openconfig-interfaces:interfaces/interface[name='"+ifName+"']/config/description")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCommitExtension checks the Commit extension's rules one by one.
func TestCommitExtension(t *testing.T) {
	f := start(t)
	before := f.desc(t)
	code := func(err error) codes.Code { return status.Code(err) }
	steps := []struct {
		name string
		req  *gpb.SetRequest
		want codes.Code
		desc any
	}{
		{"confirm with nothing pending", &gpb.SetRequest{Extension: commitExt("a", "confirm")}, codes.FailedPrecondition, before},
		{"commit without an id", &gpb.SetRequest{Update: descUpdate("x"), Extension: commitExt("", time.Minute)}, codes.InvalidArgument, before},
		{"confirmed commit", &gpb.SetRequest{Update: descUpdate("pending"), Extension: commitExt("a", time.Minute)}, codes.OK, "pending"},
		{"second commit while pending", &gpb.SetRequest{Update: descUpdate("second"), Extension: commitExt("b", time.Minute)}, codes.FailedPrecondition, "pending"},
		{"plain Set while pending", &gpb.SetRequest{Update: descUpdate("plain")}, codes.FailedPrecondition, "pending"},
		{"confirm of another id", &gpb.SetRequest{Extension: commitExt("b", "confirm")}, codes.InvalidArgument, "pending"},
		{"confirm carrying changes", &gpb.SetRequest{Update: descUpdate("y"), Extension: commitExt("a", "confirm")}, codes.InvalidArgument, "pending"},
		{"cancel", &gpb.SetRequest{Extension: commitExt("a", "cancel")}, codes.OK, before},
		{"cancel again", &gpb.SetRequest{Extension: commitExt("a", "cancel")}, codes.FailedPrecondition, before},
		{"confirmed commit again", &gpb.SetRequest{Update: descUpdate("kept"), Extension: commitExt("c", time.Second)}, codes.OK, "kept"},
		{"confirm", &gpb.SetRequest{Extension: commitExt("c", "confirm")}, codes.OK, "kept"},
		{"plain Set", &gpb.SetRequest{Update: descUpdate("plain")}, codes.OK, "plain"},
		{"refused value", &gpb.SetRequest{Update: []*gpb.Update{{Path: ifPath("config", "mtu"), Val: &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: "big"}}}}}, codes.InvalidArgument, "plain"},
		{"unknown module", &gpb.SetRequest{Update: []*gpb.Update{{Path: &gpb.Path{Origin: "nosuch-module", Elem: []*gpb.PathElem{{Name: "x"}}}, Val: &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: "v"}}}}}, codes.InvalidArgument, "plain"},
	}
	for _, s := range steps {
		_, err := f.c.Set(ctxT(t), s.req)
		if code(err) != s.want {
			t.Fatalf("%s: %v, want %s", s.name, err, s.want)
		}
		if got := f.desc(t); got != s.desc {
			t.Fatalf("%s: description %v, want %v", s.name, got, s.desc)
		}
	}
	time.Sleep(1500 * time.Millisecond)
	if got := f.desc(t); got != "plain" {
		t.Errorf("a confirmed commit's timer changed the description to %v", got)
	}
}

// TestSubscribePoll: POLL answers each Poll with the leaves and a
// sync_response.
func TestSubscribePoll(t *testing.T) {
	f := start(t)
	st, err := f.c.Subscribe(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	st.Send(&gpb.SubscribeRequest{Request: &gpb.SubscribeRequest_Subscribe{Subscribe: &gpb.SubscriptionList{
		Mode: gpb.SubscriptionList_POLL, Encoding: gpb.Encoding_PROTO,
		Subscription: []*gpb.Subscription{{Path: ifPath("state", "oper-status")}}}}})
	for round := 0; round < 3; round++ {
		if round > 0 {
			st.Send(&gpb.SubscribeRequest{Request: &gpb.SubscribeRequest_Poll{Poll: &gpb.Poll{}}})
		}
		r, err := st.Recv()
		if err != nil {
			t.Fatal(err)
		}
		u := r.GetUpdate().GetUpdate()
		if len(u) != 1 || u[0].GetVal().GetStringVal() != "UP" {
			t.Fatalf("round %d: %v", round, r)
		}
		if r, err := st.Recv(); err != nil || !r.GetSyncResponse() {
			t.Fatalf("round %d: %v, %v, want sync_response", round, r, err)
		}
	}
}

// TestCapabilitiesAndGet: Capabilities lists the driver's modules; Get of
// CONFIG reads running, of STATE the operational datastore; a missing
// entry is NotFound.
func TestCapabilitiesAndGet(t *testing.T) {
	f := start(t)
	caps, err := f.c.Capabilities(ctxT(t), &gpb.CapabilityRequest{})
	if err != nil || caps.GetGNMIVersion() == "" || len(caps.GetSupportedModels()) == 0 {
		t.Fatalf("Capabilities: %v, %v", caps, err)
	}
	for typ, wantState := range map[gpb.GetRequest_DataType]bool{gpb.GetRequest_CONFIG: false, gpb.GetRequest_STATE: true} {
		resp, err := f.c.Get(ctxT(t), &gpb.GetRequest{Path: []*gpb.Path{ifPath()}, Type: typ, Encoding: gpb.Encoding_JSON_IETF})
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		json.Unmarshal(resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonIetfVal(), &v)
		if _, has := v["state"]; has != wantState {
			t.Errorf("Get %s: state present %v, want %v", typ, has, wantState)
		}
	}
	_, err = f.c.Get(ctxT(t), &gpb.GetRequest{Path: []*gpb.Path{{Origin: "openconfig", Elem: []*gpb.PathElem{{Name: "interfaces"}, {Name: "interface", Key: map[string]string{"name": "nope"}}}}}, Encoding: gpb.Encoding_JSON_IETF})
	if status.Code(err) != codes.NotFound {
		t.Errorf("Get of a missing interface: %v, want NotFound", err)
	}
	_, err = f.c.Get(ctxT(t), &gpb.GetRequest{Encoding: gpb.Encoding_ASCII})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("Get in ASCII: %v, want Unimplemented", err)
	}
}
