//go:build !linux

package main

import (
	"context"
	"io"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/device/linux"
	"github.com/netmcp/netmcp/lab/topology"
)

// The real lab (lab up --real, lab compare) runs FRR in Linux network
// namespaces, each router served through linux://. Elsewhere its flags
// and commands stay, and say that they need Linux.

// realLabFlags are the flags of "lab up --real".
type realLabFlags struct {
	real      bool
	inventory string
	prefix    string
	report    bool
	faults    []string
	stateDir  string
}

// errRealLab is the error of every real-lab command here.
var errRealLab = linux.NeedsLinux("the real lab (FRR in network namespaces)", runtime.GOOS)

// addRealLabFlags registers --real, --inventory and --netns-prefix on
// "lab up", so that using them reports errRealLab.
func addRealLabFlags(up *cobra.Command, f *realLabFlags) {
	up.Flags().BoolVar(&f.real, "real", false, "build the topology as a real network: "+errRealLab.Error())
	up.Flags().StringVar(&f.inventory, "inventory", "", "with --real: write the lab's inventory file here")
	up.Flags().StringVar(&f.prefix, "netns-prefix", "", "with --real: prefix of the namespace names")
}

// runRealLab refuses "lab up --real".
func runRealLab(context.Context, topology.Topology, realLabFlags, int, io.Writer, io.Writer) error {
	return withExit(2, errRealLab)
}

// newLabCompareCmd builds "netmcp lab compare", which refuses whatever
// its arguments.
func newLabCompareCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "compare",
		Short:              "Compare the simulated lab with the real one (" + errRealLab.Error() + ")",
		DisableFlagParsing: true,
		RunE:               func(*cobra.Command, []string) error { return withExit(2, errRealLab) },
	}
}
