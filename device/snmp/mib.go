package snmp

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gosnmp/gosnmp"
)

// Numeric OIDs (Debian ships no MIB text; the driver needs none).
const (
	oidSysDescr    = ".1.3.6.1.2.1.1.1.0"
	oidSysObjectID = ".1.3.6.1.2.1.1.2.0"
	oidSysUpTime   = ".1.3.6.1.2.1.1.3.0"
	oidSysName     = ".1.3.6.1.2.1.1.5.0"

	oidIfEntry  = ".1.3.6.1.2.1.2.2.1"      // IF-MIB ifTable
	oidIfXEntry = ".1.3.6.1.2.1.31.1.1.1"   // IF-MIB ifXTable
	oidIfDescr  = ".1.3.6.1.2.1.2.2.1.2"    // ifDescr column
	oidIfName   = ".1.3.6.1.2.1.31.1.1.1.1" // ifName column

	oidIPAddressEntry = ".1.3.6.1.2.1.4.34.1"     // IP-MIB ipAddressTable
	oidIPAdEntry      = ".1.3.6.1.2.1.4.20.1"     // IP-MIB ipAddrTable (IPv4 only, deprecated)
	oidInetCidrRoute  = ".1.3.6.1.2.1.4.24.7.1"   // IP-FORWARD-MIB inetCidrRouteTable
	oidIPCidrRoute    = ".1.3.6.1.2.1.4.24.4.1"   // IP-FORWARD-MIB ipCidrRouteTable (IPv4 only, deprecated)
	oidHrStorageEntry = ".1.3.6.1.2.1.25.2.3.1"   // HOST-RESOURCES-MIB hrStorageTable
	oidHrStorageRAM   = ".1.3.6.1.2.1.25.2.1.2"   // hrStorageRam
	oidHrProcLoad     = ".1.3.6.1.2.1.25.3.3.1.2" // hrProcessorLoad column
)

// system is the system group.
type system struct {
	Descr, Name, ObjectID string
	UpTime                uint32    // hundredths of a second since the agent started
	At                    time.Time // when UpTime was read
}

// boot returns when the agent's clock started.
func (s system) boot() time.Time { return s.At.Add(-time.Duration(s.UpTime) * 10 * time.Millisecond) }

// ticksAt converts a TimeTicks value of the agent to wall time.
func (s system) ticksAt(t uint32) time.Time {
	return s.boot().Add(time.Duration(t) * 10 * time.Millisecond)
}

// counters are an interface's counters (the 64-bit ones where the agent
// has them).
type counters struct {
	InOctets, InUcast, InMcast, InBcast, InDiscards, InErrors, InUnknownProtos uint64
	OutOctets, OutUcast, OutMcast, OutBcast, OutDiscards, OutErrors            uint64
}

// iface is one row of ifTable joined with ifXTable.
type iface struct {
	Index         int
	Descr, Name   string // Name is ifName, "" if the agent has no ifXTable
	Alias         string
	Type          int
	MTU           int
	Speed         uint64 // bits per second
	PhysAddress   []byte
	Admin, Oper   int
	LastChange    uint32
	Discontinuity uint32
	C             counters
	HC            bool // the octet and packet counters are ifXTable's 64-bit ones
	V4, V6        []address
}

// name is the interface's name: ifName, or ifDescr without it.
func (i *iface) name() string {
	if i.Name != "" {
		return i.Name
	}
	return i.Descr
}

// address is one IP address of an interface.
type address struct {
	Prefix netip.Prefix // address and prefix length
	Origin int          // IpAddressOriginTC: 1 other, 2 manual, 4 dhcp, 5 linklayer, 6 random; 0 unknown
}

// route is one row of the forwarding table.
type route struct {
	Dest    netip.Prefix
	NextHop netip.Addr // invalid: none (directly connected)
	IfIndex int
	Type    int // 1 other, 2 reject, 3 local, 4 remote, 5 blackhole
	Proto   int // IANAipRouteProtocol
	Metric  int // -1: unused
}

// resources is HOST-RESOURCES-MIB's CPU and memory, where present.
type resources struct {
	CPULoads []int // hrProcessorLoad per processor, percent over the last minute
	RAMTotal uint64
	RAMUsed  uint64
	HasRAM   bool
}

// parts selects what a snapshot collects.
type parts uint8

const (
	partSystem parts = 1 << iota
	partInterfaces
	partAddresses
	partRoutes
	partIfNames // interface names only (for the routing table)
	partResources
	partAll = partSystem | partInterfaces | partAddresses | partRoutes | partResources
)

// snapshot is what one poll of the agent returned.
type snapshot struct {
	Sys    system
	Ifs    []*iface // by ifIndex
	Routes []route
	Res    resources
}

func (s *snapshot) ifByIndex(i int) *iface {
	for _, it := range s.Ifs {
		if it.Index == i {
			return it
		}
	}
	return nil
}

// fetchSystem reads the system group; the agent's silence here is the
// first sign of wrong credentials.
func fetchSystem(ctx context.Context, c *client) (system, error) {
	vs, err := c.get(ctx, oidSysDescr, oidSysObjectID, oidSysUpTime, oidSysName)
	if err != nil {
		return system{}, err
	}
	s := system{At: time.Now()}
	for _, v := range vs {
		switch v.Name {
		case oidSysDescr:
			s.Descr = str(v)
		case oidSysObjectID:
			s.ObjectID, _ = v.Value.(string)
		case oidSysUpTime:
			s.UpTime = uint32(gosnmp.ToBigInt(v.Value).Uint64())
		case oidSysName:
			s.Name = str(v)
		}
	}
	return s, nil
}

// collect polls the agent for the selected parts.
func collect(ctx context.Context, c *client, want parts) (*snapshot, error) {
	s := &snapshot{}
	var err error
	if want&(partSystem|partInterfaces) != 0 {
		if s.Sys, err = fetchSystem(ctx, c); err != nil {
			return nil, err
		}
	}
	switch {
	case want&partInterfaces != 0:
		if s.Ifs, err = fetchInterfaces(ctx, c); err != nil {
			return nil, err
		}
	case want&(partIfNames|partRoutes|partAddresses) != 0:
		if s.Ifs, err = fetchIfNames(ctx, c); err != nil {
			return nil, err
		}
	}
	if want&partAddresses != 0 {
		if err := fetchAddresses(ctx, c, s); err != nil {
			return nil, err
		}
	}
	if want&partRoutes != 0 {
		if s.Routes, err = fetchRoutes(ctx, c); err != nil {
			return nil, err
		}
	}
	if want&partResources != 0 {
		if s.Res, err = fetchResources(ctx, c); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// column splits a table object's OID into its column and index below
// entry: ".1.3.6.1.2.1.2.2.1.10.2" under ifEntry is column 10, index [2].
func column(name, entry string) (int, []uint32, bool) {
	rest, ok := strings.CutPrefix(name, entry+".")
	if !ok {
		return 0, nil, false
	}
	parts := strings.Split(rest, ".")
	if len(parts) < 2 {
		return 0, nil, false
	}
	col, err := strconv.Atoi(parts[0])
	if err != nil {
		return 0, nil, false
	}
	idx := make([]uint32, 0, len(parts)-1)
	for _, p := range parts[1:] {
		n, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return 0, nil, false
		}
		idx = append(idx, uint32(n))
	}
	return col, idx, true
}

func str(v gosnmp.SnmpPDU) string {
	if b, ok := v.Value.([]byte); ok {
		return strings.TrimRight(string(b), "\x00")
	}
	if s, ok := v.Value.(string); ok {
		return s
	}
	return ""
}

func u64(v gosnmp.SnmpPDU) uint64 {
	switch v.Type {
	case gosnmp.NoSuchObject, gosnmp.NoSuchInstance, gosnmp.EndOfMibView, gosnmp.Null:
		return 0
	}
	b := gosnmp.ToBigInt(v.Value)
	if b.Sign() < 0 {
		return 0
	}
	return b.Uint64()
}

func i64(v gosnmp.SnmpPDU) int64 {
	b := gosnmp.ToBigInt(v.Value)
	if !b.IsInt64() {
		return 0
	}
	return b.Int64()
}

// fetchInterfaces walks ifTable and ifXTable.
func fetchInterfaces(ctx context.Context, c *client) ([]*iface, error) {
	rows, err := c.walk(ctx, oidIfEntry)
	if err != nil {
		return nil, err
	}
	byIdx := map[int]*iface{}
	var order []int
	row := func(i int) *iface {
		it := byIdx[i]
		if it == nil {
			it = &iface{Index: i}
			byIdx[i] = it
			order = append(order, i)
		}
		return it
	}
	for _, v := range rows {
		col, idx, ok := column(v.Name, oidIfEntry)
		if !ok || len(idx) != 1 {
			continue
		}
		it := row(int(idx[0]))
		switch col {
		case 2:
			it.Descr = str(v)
		case 3:
			it.Type = int(i64(v))
		case 4:
			it.MTU = int(i64(v))
		case 5:
			if it.Speed == 0 {
				it.Speed = u64(v)
			}
		case 6:
			it.PhysAddress, _ = v.Value.([]byte)
		case 7:
			it.Admin = int(i64(v))
		case 8:
			it.Oper = int(i64(v))
		case 9:
			it.LastChange = uint32(u64(v))
		case 10:
			it.C.InOctets = u64(v)
		case 11:
			it.C.InUcast = u64(v)
		case 12: // ifInNUcastPkts: broadcast + multicast, split by ifXTable when present
			it.C.InMcast = u64(v)
		case 13:
			it.C.InDiscards = u64(v)
		case 14:
			it.C.InErrors = u64(v)
		case 15:
			it.C.InUnknownProtos = u64(v)
		case 16:
			it.C.OutOctets = u64(v)
		case 17:
			it.C.OutUcast = u64(v)
		case 18:
			it.C.OutMcast = u64(v)
		case 19:
			it.C.OutDiscards = u64(v)
		case 20:
			it.C.OutErrors = u64(v)
		}
	}
	xrows, err := c.walk(ctx, oidIfXEntry)
	if err != nil {
		return nil, err
	}
	for _, v := range xrows {
		col, idx, ok := column(v.Name, oidIfXEntry)
		if !ok || len(idx) != 1 {
			continue
		}
		it := byIdx[int(idx[0])]
		if it == nil {
			continue
		}
		switch col {
		case 1:
			it.Name = str(v)
		case 6:
			it.HC = true
			it.C.InOctets = u64(v)
		case 7:
			it.C.InUcast = u64(v)
		case 8:
			it.C.InMcast = u64(v)
		case 9:
			it.C.InBcast = u64(v)
		case 10:
			it.C.OutOctets = u64(v)
		case 11:
			it.C.OutUcast = u64(v)
		case 12:
			it.C.OutMcast = u64(v)
		case 13:
			it.C.OutBcast = u64(v)
		case 15:
			if hs := u64(v); hs > 0 {
				it.Speed = hs * 1_000_000
			}
		case 18:
			it.Alias = str(v)
		case 19:
			it.Discontinuity = uint32(u64(v))
		}
	}
	out := make([]*iface, 0, len(order))
	slices.Sort(order)
	for _, i := range order {
		out = append(out, byIdx[i])
	}
	return out, nil
}

// fetchIfNames walks only the name columns.
func fetchIfNames(ctx context.Context, c *client) ([]*iface, error) {
	var out []*iface
	byIdx := map[int]*iface{}
	for _, root := range []string{oidIfDescr, oidIfName} {
		rows, err := c.walk(ctx, root)
		if err != nil {
			return nil, err
		}
		for _, v := range rows {
			rest, ok := strings.CutPrefix(v.Name, root+".")
			if !ok {
				continue
			}
			i, err := strconv.Atoi(rest)
			if err != nil {
				continue
			}
			it := byIdx[i]
			if it == nil {
				it = &iface{Index: i}
				byIdx[i] = it
				out = append(out, it)
			}
			if root == oidIfName {
				it.Name = str(v)
			} else {
				it.Descr = str(v)
			}
		}
	}
	slices.SortFunc(out, func(a, b *iface) int { return a.Index - b.Index })
	return out, nil
}

// inetAddr decodes an InetAddressType and a length-prefixed InetAddress
// from an index, returning the rest. Zoned types (3, 4) are decoded
// without their zone.
func inetAddr(idx []uint32) (netip.Addr, []uint32, bool) {
	if len(idx) < 2 {
		return netip.Addr{}, nil, false
	}
	typ, n := idx[0], int(idx[1])
	if len(idx) < 2+n {
		return netip.Addr{}, nil, false
	}
	raw := idx[2 : 2+n]
	rest := idx[2+n:]
	b := make([]byte, 0, 16)
	for _, x := range raw {
		if x > 255 {
			return netip.Addr{}, nil, false
		}
		b = append(b, byte(x))
	}
	switch {
	case typ == 0 && n == 0: // unknown: no address (a next hop of a connected route)
		return netip.Addr{}, rest, true
	case (typ == 1 && n == 4) || (typ == 3 && n == 8):
		return netip.AddrFrom4([4]byte(b[:4])), rest, true
	case (typ == 2 && n == 16) || (typ == 4 && n == 20):
		return netip.AddrFrom16([16]byte(b[:16])), rest, true
	}
	return netip.Addr{}, nil, false
}

// fetchAddresses fills the interfaces' addresses from ipAddressTable, or
// from ipAddrTable (IPv4 only) on agents without it.
func fetchAddresses(ctx context.Context, c *client, s *snapshot) error {
	rows, err := c.walk(ctx, oidIPAddressEntry)
	if err != nil {
		return err
	}
	type row struct {
		ifIndex, typ, origin, plen int
	}
	found := map[netip.Addr]*row{}
	var order []netip.Addr
	for _, v := range rows {
		col, idx, ok := column(v.Name, oidIPAddressEntry)
		if !ok {
			continue
		}
		a, rest, ok := inetAddr(idx)
		if !ok || len(rest) != 0 || !a.IsValid() {
			continue
		}
		r := found[a]
		if r == nil {
			r = &row{plen: -1}
			found[a] = r
			order = append(order, a)
		}
		switch col {
		case 3:
			r.ifIndex = int(i64(v))
		case 4:
			r.typ = int(i64(v))
		case 5: // ipAddressPrefix: a row pointer whose last sub-identifier is the prefix length
			if oid, ok := v.Value.(string); ok {
				if i := strings.LastIndexByte(oid, '.'); i >= 0 {
					if n, err := strconv.Atoi(oid[i+1:]); err == nil {
						r.plen = n
					}
				}
			}
		case 6:
			r.origin = int(i64(v))
		}
	}
	if len(found) > 0 {
		for _, a := range order {
			r := found[a]
			it := s.ifByIndex(r.ifIndex)
			if it == nil || r.typ == 3 { // broadcast addresses are not interface addresses
				continue
			}
			plen := r.plen
			if plen < 0 || plen > a.BitLen() {
				plen = a.BitLen()
			}
			ad := address{Prefix: netip.PrefixFrom(a, plen), Origin: r.origin}
			if a.Is4() {
				it.V4 = append(it.V4, ad)
			} else {
				it.V6 = append(it.V6, ad)
			}
		}
		return nil
	}
	rows, err = c.walk(ctx, oidIPAdEntry)
	if err != nil {
		return err
	}
	ifIdx, masks := map[netip.Addr]int{}, map[netip.Addr]int{}
	var addrs []netip.Addr
	for _, v := range rows {
		col, idx, ok := column(v.Name, oidIPAdEntry)
		if !ok || len(idx) != 4 {
			continue
		}
		a := netip.AddrFrom4([4]byte{byte(idx[0]), byte(idx[1]), byte(idx[2]), byte(idx[3])})
		switch col {
		case 2:
			ifIdx[a] = int(i64(v))
			addrs = append(addrs, a)
		case 3:
			if m, ok := v.Value.(string); ok {
				if ma, err := netip.ParseAddr(m); err == nil {
					b := ma.As4()
					masks[a] = popcount(b[:])
				}
			}
		}
	}
	for _, a := range addrs {
		if it := s.ifByIndex(ifIdx[a]); it != nil {
			plen, ok := masks[a]
			if !ok {
				plen = 32
			}
			it.V4 = append(it.V4, address{Prefix: netip.PrefixFrom(a, plen)})
		}
	}
	return nil
}

func popcount(b []byte) int {
	n := 0
	for _, x := range b {
		for ; x != 0; x &= x - 1 {
			n++
		}
	}
	return n
}

// fetchRoutes walks inetCidrRouteTable, or ipCidrRouteTable (IPv4 only)
// on agents without it.
func fetchRoutes(ctx context.Context, c *client) ([]route, error) {
	rows, err := c.walk(ctx, oidInetCidrRoute)
	if err != nil {
		return nil, err
	}
	byKey := map[string]*route{}
	var order []string
	for _, v := range rows {
		col, idx, ok := column(v.Name, oidInetCidrRoute)
		if !ok {
			continue
		}
		r, ok := inetCidrIndex(idx)
		if !ok {
			continue
		}
		key := v.Name[len(oidInetCidrRoute)+1+len(strconv.Itoa(col)):]
		p := byKey[key]
		if p == nil {
			r.Metric = -1
			p = &r
			byKey[key] = p
			order = append(order, key)
		}
		switch col {
		case 7:
			p.IfIndex = int(i64(v))
		case 8:
			p.Type = int(i64(v))
		case 9:
			p.Proto = int(i64(v))
		case 12:
			p.Metric = int(i64(v))
		}
	}
	if len(byKey) > 0 {
		out := make([]route, 0, len(order))
		for _, k := range order {
			out = append(out, *byKey[k])
		}
		return out, nil
	}
	rows, err = c.walk(ctx, oidIPCidrRoute)
	if err != nil {
		return nil, err
	}
	for _, v := range rows {
		col, idx, ok := column(v.Name, oidIPCidrRoute)
		if !ok || len(idx) != 13 {
			continue
		}
		key := fmt.Sprint(idx)
		p := byKey[key]
		if p == nil {
			var b [13]byte
			for i, x := range idx {
				b[i] = byte(x)
			}
			dest := netip.AddrFrom4([4]byte(b[0:4]))
			r := route{Dest: netip.PrefixFrom(dest, popcount(b[4:8])), Metric: -1}
			if nh := netip.AddrFrom4([4]byte(b[9:13])); !nh.IsUnspecified() {
				r.NextHop = nh
			}
			p = &r
			byKey[key] = p
			order = append(order, key)
		}
		switch col {
		case 5:
			p.IfIndex = int(i64(v))
		case 6:
			p.Type = int(i64(v))
		case 7:
			p.Proto = int(i64(v))
		case 11:
			p.Metric = int(i64(v))
		}
	}
	out := make([]route, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	return out, nil
}

// inetCidrIndex decodes inetCidrRouteTable's index: destination type and
// address, prefix length, policy (a length-prefixed OID), next-hop type
// and address.
func inetCidrIndex(idx []uint32) (route, bool) {
	dest, rest, ok := inetAddr(idx)
	if !ok || !dest.IsValid() || len(rest) < 2 {
		return route{}, false
	}
	plen := int(rest[0])
	if plen > dest.BitLen() {
		return route{}, false
	}
	n := int(rest[1])
	if len(rest) < 2+n {
		return route{}, false
	}
	nh, rest, ok := inetAddr(rest[2+n:])
	if !ok || len(rest) != 0 {
		return route{}, false
	}
	r := route{Dest: netip.PrefixFrom(dest, plen).Masked()}
	if nh.IsValid() && !nh.IsUnspecified() {
		r.NextHop = nh
	}
	return r, true
}

// fetchResources reads hrProcessorLoad and the RAM row of hrStorageTable.
// An agent without HOST-RESOURCES-MIB gives an empty result, not an error.
func fetchResources(ctx context.Context, c *client) (resources, error) {
	var r resources
	rows, err := c.walk(ctx, oidHrProcLoad)
	if err != nil {
		return r, err
	}
	for _, v := range rows {
		if strings.HasPrefix(v.Name, oidHrProcLoad+".") {
			r.CPULoads = append(r.CPULoads, int(i64(v)))
		}
	}
	rows, err = c.walk(ctx, oidHrStorageEntry)
	if err != nil {
		return r, err
	}
	type st struct {
		typ        string
		unit       uint64
		size, used uint64
	}
	byIdx := map[uint32]*st{}
	for _, v := range rows {
		col, idx, ok := column(v.Name, oidHrStorageEntry)
		if !ok || len(idx) != 1 {
			continue
		}
		s := byIdx[idx[0]]
		if s == nil {
			s = &st{}
			byIdx[idx[0]] = s
		}
		switch col {
		case 2:
			s.typ, _ = v.Value.(string)
		case 4:
			s.unit = u64(v)
		case 5:
			s.size = u64(v)
		case 6:
			s.used = u64(v)
		}
	}
	for _, s := range byIdx {
		if s.typ == oidHrStorageRAM && s.unit > 0 && s.size > 0 {
			r.RAMTotal, r.RAMUsed, r.HasRAM = s.size*s.unit, min(s.used, s.size)*s.unit, true
			break
		}
	}
	return r, nil
}
