package client_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// benchServerEnv makes the test binary a fleet server (see TestMain).
const benchServerEnv = "NETMCP_CLIENT_FLEET_SERVER"

func TestMain(m *testing.M) {
	if n := os.Getenv(benchServerEnv); n != "" {
		count, err := strconv.Atoi(n)
		if err == nil {
			err = serveFleet(count)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fleetTopology is n unconnected routers d0001.., each with a loopback.
func fleetTopology(n int) topology.Topology {
	topo := topology.Topology{Name: "fleet"}
	for i := 1; i <= n; i++ {
		topo.Devices = append(topo.Devices, topology.Device{
			Name: fmt.Sprintf("d%04d", i), Kind: topology.KindRouter, Dialect: "huawei-vrp",
			Interfaces: []topology.Interface{{Name: "LoopBack0", Type: "softwareLoopback",
				Addresses: []string{fmt.Sprintf("10.%d.%d.1/32", i/256, i%256)}}},
		})
	}
	return topo
}

// serveFleet serves n simulated routers, each its own MCP server, over
// Streamable HTTP on one loopback port (path /NAME/mcp), prints
// "ADDR host:port" and serves until its standard input closes. It runs in
// a child process so that the client's heap is measured alone.
func serveFleet(n int) error {
	lab, err := sim.NewLab(fleetTopology(n), sim.LabOptions{})
	if err != nil {
		return err
	}
	defer lab.Close()
	mux := http.NewServeMux()
	for _, name := range lab.Routers() {
		drv, err := lab.Device(name)
		if err != nil {
			return err
		}
		srv, err := server.New(drv, server.Options{})
		if err != nil {
			return err
		}
		h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{})
		mux.Handle("/"+name+"/", http.StripPrefix("/"+name, h))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(ln, mux)
	fmt.Printf("ADDR %s\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// startFleetServer runs serveFleet(n) in a child process and returns
// the inventory of its devices.
func startFleetServer(tb testing.TB, n int) *inventory.Inventory {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchServerEnv+"="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ADDR ") {
		tb.Fatalf("fleet server: %q %v", line, err)
	}
	addr := strings.TrimSpace(strings.TrimPrefix(line, "ADDR "))
	inv := &inventory.Inventory{Name: "fleet"}
	for _, d := range fleetTopology(n).Devices {
		inv.Devices = append(inv.Devices, inventory.Device{Name: d.Name, URL: "http://" + addr + "/" + d.Name + transport.Path})
	}
	return inv
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(float64(len(s)-1) * p)
	return s[i]
}

// BenchmarkFleetFanOut1000 fans one network.yang.get out to 1,000
// simulated devices, each its own MCP server over Streamable HTTP on
// loopback (served by a child process), with the default concurrency.
// Reported: p50/p99 of the per-device call time and of the whole
// fan-out, and the client's heap in use per session.
//
//	go test -run '^$' -bench FleetFanOut1000 -benchtime 20x ./client/
func BenchmarkFleetFanOut1000(b *testing.B) {
	const n = 1000
	inv := startFleetServer(b, n)
	before := heapInUse()
	f, err := client.New(inv, client.Options{ConnectTimeout: time.Minute, CallTimeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	start := time.Now()
	if err := f.Connect(ctx); err != nil {
		b.Fatal(err)
	}
	connect := time.Since(start)
	perSession := float64(heapInUse()-before) / n
	args := map[string]any{"path": hostnamePath}
	var perDevice, whole []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		results := f.CallAll(ctx, nil, netproto.ToolYangGet, args)
		whole = append(whole, time.Since(t0))
		for _, r := range results {
			if r.Err != nil {
				b.Fatal(r.Err)
			}
			perDevice = append(perDevice, r.Elapsed)
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(percentile(perDevice, 0.5)), "device-p50-ms")
	b.ReportMetric(ms(percentile(perDevice, 0.99)), "device-p99-ms")
	b.ReportMetric(ms(percentile(whole, 0.5)), "fanout-p50-ms")
	b.ReportMetric(ms(percentile(whole, 0.99)), "fanout-p99-ms")
	b.ReportMetric(perSession/1024, "heap-KiB/session")
	b.ReportMetric(ms(connect), "connect-all-ms")
}
