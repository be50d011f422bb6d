//go:build !linux

package serve

import (
	"context"
	"io"
	"runtime"

	"github.com/netmcp/netmcp/device/linux"
	"github.com/netmcp/netmcp/lab/topology"
)

// The real lab (lab/real: FRR in Linux network namespaces, each device
// served through linux://) and the twin check that compares it with the
// simulator are built on Linux only. Elsewhere their entry points stay and
// refuse with ErrNoRealLab.

// RealFaults are the fault names the real lab builds: none here.
var RealFaults []string

// TwinFaults are the faults Compare applies to both labs: none here.
var TwinFaults []string

// ErrNoRealLab is why this system cannot build the real lab.
var ErrNoRealLab = linux.NeedsLinux("the real lab (FRR in network namespaces)", runtime.GOOS)

// checkRealFault refuses every fault: there is no real lab here.
func checkRealFault(topology.Fault) error { return ErrNoRealLab }

// upReal refuses: there is no real lab here.
func upReal(context.Context, Options, *Auth) (*Lab, error) { return nil, ErrNoRealLab }

// Compare refuses: the twin check needs the real lab.
func Compare(context.Context, CompareOptions, io.Writer) (int, error) { return 0, ErrNoRealLab }
