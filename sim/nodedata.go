package sim

// NodeData returns the payload of an event that a simulated process added
// (KindNode), and nil for the kernel's own kinds, a fault event's
// FaultDetail included. A subscriber that judges what the nodes did
// type-switches on it directly, with no kind test of its own:
//
//	switch d := e.NodeData().(type) { case *etcdtrace.Apply: ... }
func (e *Event) NodeData() Data {
	if e.Kind != KindNode {
		return nil
	}
	return e.Data
}
