package sim

import (
	"context"
	"fmt"
	"testing"

	"github.com/netmcp/netmcp/device"
)

func BenchmarkNewLab(b *testing.B) {
	topo := DefaultTopology()
	for i := 0; i < b.N; i++ {
		lab, err := NewLab(topo, LabOptions{})
		if err != nil {
			b.Fatal(err)
		}
		lab.Close()
	}
}

func BenchmarkExecRoutingTable(b *testing.B) {
	lab, _ := NewLab(DefaultTopology(), LabOptions{})
	defer lab.Close()
	r1, _ := lab.Device("r1")
	for i := 0; i < b.N; i++ {
		if _, err := r1.Exec(context.Background(), "display ip routing-table"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetOperational(b *testing.B) {
	lab, _ := NewLab(DefaultTopology(), LabOptions{})
	defer lab.Close()
	r1, _ := lab.Device("r1")
	for i := 0; i < b.N; i++ {
		if _, err := r1.Get(context.Background(), device.Operational, "/openconfig-interfaces:interfaces/interface[name='Vlan100']"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConfigureCommit(b *testing.B) {
	lab, _ := NewLab(DefaultTopology(), LabOptions{})
	defer lab.Close()
	r2, _ := lab.Device("r2")
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		desc := "d" + string(rune('a'+i%26))
		if err := r2.Configure(ctx, alice, []string{"interface GigabitEthernet0/0/0/2", "description " + desc}); err != nil {
			b.Fatal(err)
		}
		if _, err := r2.Commit(ctx, alice, device.CommitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitInLargeLab commits a description change on one router of
// a generated lab: what one device's change costs the model (validation,
// copying, recomputation, the interface-state diff) as the lab grows.
func BenchmarkCommitInLargeLab(b *testing.B) {
	for _, n := range []int{50, 200, 1000} {
		b.Run(fmt.Sprintf("chain%d", n), func(b *testing.B) {
			topo, err := ChainTopology(n)
			if err != nil {
				b.Fatal(err)
			}
			lab, err := NewLab(topo, LabOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer lab.Close()
			r2, _ := lab.Device("r2")
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := r2.Configure(ctx, alice, []string{"interface GigabitEthernet0/0/0/1", fmt.Sprintf("description d%d", i)}); err != nil {
					b.Fatal(err)
				}
				if _, err := r2.Commit(ctx, alice, device.CommitOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewGeneratedLab builds the model and the drivers of generated
// labs (without lab up's HTTP servers; see lab/serve BenchmarkLabUp).
func BenchmarkNewGeneratedLab(b *testing.B) {
	for _, n := range []int{50, 200, 1000} {
		b.Run(fmt.Sprintf("chain%d", n), func(b *testing.B) {
			topo, err := ChainTopology(n)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				lab, err := NewLab(topo, LabOptions{})
				if err != nil {
					b.Fatal(err)
				}
				lab.Close()
			}
		})
	}
}
