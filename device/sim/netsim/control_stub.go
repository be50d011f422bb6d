package netsim

// Placeholders of the control-plane API until the OSPF and BGP models land
// (they replace this file): every device reports no OSPF and no BGP.

// OSPF returns the OSPF process of a device.
func (n *Network) OSPF(dev string) (OSPFState, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	if _, _, err := n.state.iface(dev, ""); err != nil {
		return OSPFState{}, err
	}
	return OSPFState{}, nil
}

// BGP returns the BGP process of a device with its sessions.
func (n *Network) BGP(dev string) (BGPState, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	if _, _, err := n.state.iface(dev, ""); err != nil {
		return BGPState{}, err
	}
	return BGPState{}, nil
}

// BGPRoutes returns a device's BGP table of one family (4 or 6).
func (n *Network) BGPRoutes(dev string, family int) ([]BGPRoute, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	if _, _, err := n.state.iface(dev, ""); err != nil {
		return nil, err
	}
	return nil, nil
}

// Adjacencies returns every OSPF adjacency and BGP session of the network,
// in topology order: one pass under one lock.
func (n *Network) Adjacencies() []AdjacencyStatus { return nil }
