package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/netproto"
)

// Example connects to the devices of an inventory file, relays device
// elicitations to the operator, and reads one YANG leaf from every device
// under one correlation id.
func Example() {
	inv, err := inventory.Load("fleet.yaml")
	if err != nil {
		log.Fatal(err)
	}
	f, err := client.New(inv, client.Options{
		Elicit: func(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			fmt.Printf("%s asks: %s\n", d.Name(), p.Message)
			return &mcp.ElicitResult{Action: "decline"}, nil // ask the operator here
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	if err := f.Connect(ctx); err != nil {
		log.Print(err) // the devices that are down; they keep being retried
	}
	ctx = client.WithCorrelationID(ctx, client.NewCorrelationID())
	for _, r := range f.CallAll(ctx, nil, netproto.ToolYangGet, map[string]any{"path": "/openconfig-system:system/config/hostname"}) {
		if r.Err != nil {
			fmt.Println(r.Err)
			continue
		}
		fmt.Println(r.Device.Name(), r.Value.StructuredContent)
	}
}
