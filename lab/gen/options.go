package gen

import (
	"fmt"
	"slices"
	"strings"
)

// Shapes of generated networks.
const (
	// ShapeRing is a ring of backbone routers (with a chord per eight
	// routers of the ring) and access routers hanging off it.
	ShapeRing = "ring"
	// ShapeMesh is a random connected backbone of about three links per
	// router, with access routers hanging off it.
	ShapeMesh = "mesh"
	// ShapeMultiAS is two to four autonomous systems, each its own OSPF
	// domain, joined by eBGP over inter-AS links.
	ShapeMultiAS = "multi-as"
	// ShapeFabric is a spine-leaf fabric: every leaf linked to every
	// spine, edge routers behind some leaves.
	ShapeFabric = "fabric"
	// ShapeHubSpoke is one to three hubs in a full mesh and branch
	// routers linked to one hub or two, each branch its own area.
	ShapeHubSpoke = "hub-spoke"
)

// Shapes lists the shapes Generate makes.
var Shapes = []string{ShapeRing, ShapeMesh, ShapeMultiAS, ShapeFabric, ShapeHubSpoke}

// Dialects of generated routers.
const (
	DialectVRP   = "huawei-vrp"
	DialectXR    = "cisco-iosxr"
	DialectMixed = "mixed" // each router one of the two, at random
)

// Dialects lists the dialect choices of Options.
var Dialects = []string{DialectVRP, DialectXR, DialectMixed}

// Bounds of Options.Routers.
const (
	MinRouters = 4
	MaxRouters = 60
)

// Options choose a generated network.
type Options struct {
	// Shape is one of Shapes.
	Shape string `yaml:"shape" json:"shape"`
	// Routers is the number of the network's own routers, MinRouters to
	// MaxRouters; the upstream providers' routers come on top (one, two
	// from 16 routers on).
	Routers int `yaml:"routers" json:"routers"`
	// Seed chooses everything random: the same options give the same
	// network.
	Seed int64 `yaml:"seed" json:"seed"`
	// Dialect is one of Dialects ("" is mixed).
	Dialect string `yaml:"dialect,omitempty" json:"dialect,omitempty"`
}

// dialect is the dialect choice with its default.
func (o Options) dialect() string {
	if o.Dialect == "" {
		return DialectMixed
	}
	return o.Dialect
}

// Check tells whether the options are valid.
func (o Options) Check() error {
	if !slices.Contains(Shapes, o.Shape) {
		return fmt.Errorf("gen: shape %q: want one of %s", o.Shape, strings.Join(Shapes, ", "))
	}
	if o.Routers < MinRouters || o.Routers > MaxRouters {
		return fmt.Errorf("gen: %d routers: want %d to %d", o.Routers, MinRouters, MaxRouters)
	}
	if !slices.Contains(Dialects, o.dialect()) {
		return fmt.Errorf("gen: dialect %q: want one of %s", o.Dialect, strings.Join(Dialects, ", "))
	}
	return nil
}

// Name is the generated topology's name, which spells its options:
// "ring-12-s7" (mixed dialects), "fabric-20-s3-cisco-iosxr".
func (o Options) Name() string {
	s := fmt.Sprintf("%s-%d-s%d", o.Shape, o.Routers, o.Seed)
	if d := o.dialect(); d != DialectMixed {
		s += "-" + d
	}
	return s
}
