package diag_test

import (
	"encoding/json"
	"fmt"

	"github.com/netmcp/netmcp/diag"
)

func ExampleParsePing() {
	out := `PING 192.0.2.1 (192.0.2.1) 56(84) bytes of data.
64 bytes from 192.0.2.1: icmp_seq=1 ttl=63 time=0.061 ms
From 198.51.100.2 icmp_seq=2 Destination Host Unreachable

--- 192.0.2.1 ping statistics ---
2 packets transmitted, 1 received, +1 errors, 50% packet loss, time 1001ms
rtt min/avg/max/mdev = 0.061/0.061/0.061/0.000 ms
`
	res, err := diag.ParsePing(out)
	if err != nil {
		panic(err)
	}
	fmt.Println(*res.PacketsReceived, *res.PacketLossPercent, *res.Errors)
	fmt.Println(res.Responses[0].Type, *res.Responses[0].TimeMs)
	e, _ := json.Marshal(res.ICMPErrors[0])
	fmt.Println(string(e))
	// Output:
	// 1 50 1
	// reply 0.061
	// {"type":"destination_host_unreachable","timestamp":null,"response_ip":"198.51.100.2","icmp_seq":2,"message":"Destination Host Unreachable"}
}

func ExampleRequest_Validate() {
	r := diag.Request{Tool: "ping", Destination: "example.com; rm -rf /"}
	fmt.Println(r.Validate())
	r = diag.Request{Tool: "ping", Destination: "192.0.2.1", Count: 2}
	fmt.Println(r.Validate(), r.Argv())
	// Output:
	// diag: invalid request: destination contains a forbidden character ' ' at byte 12 (ASCII host names and IP addresses only)
	// <nil> [ping -n -c 2 -i 1 -W 2 -- 192.0.2.1]
}
