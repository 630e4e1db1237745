package sim

import "time"

// LinkSpec describes one direction of a link.
type LinkSpec struct {
	Latency time.Duration // base one-way delay
	Jitter  time.Duration // uniform extra delay in [0, Jitter)
	Loss    float64       // probability a message is dropped
	Dup     float64       // probability a message is delivered twice
	Reorder float64       // probability a message may overtake earlier ones
}

// DefaultLinkSpec is a quiet data-centre network: 0.5-1.5 ms one way,
// in order, nothing lost.
var DefaultLinkSpec = LinkSpec{Latency: 500 * time.Microsecond, Jitter: time.Millisecond}

// Message is what travels on the fabric. Payload is owned by the receiver
// once delivered; senders must not modify it afterwards.
type Message struct {
	ID      uint64
	From    HostID
	To      HostID
	Port    string
	Payload any
	// FromInc is the sender's incarnation; ToInc, when non-zero, is the
	// receiver incarnation the message is meant for. A reply to a request
	// made by an incarnation that has since crashed is dropped as stale.
	FromInc uint64
	ToInc   uint64
	SentAt  Time
}

// overlay is a temporary degradation of every link touching some hosts,
// installed by a flaky-network fault.
type overlay struct {
	id    uint64
	hosts []HostID
	spec  LinkSpec
}

// Network is the fabric between hosts: per-link latency, loss, duplication
// and reordering; partitions as counted cuts, so that overlapping faults heal
// independently; and role rules on destination ports.
type Network struct {
	w        *World
	def      LinkSpec
	links    [][]*LinkSpec // per-direction override, nil for the default
	cuts     [][]int32     // >0 while some fault cuts from->to
	lastAt   [][]Time      // latest in-order delivery time per direction
	overlays []overlay
	rules    []portRule
	stream   *Stream
}

type portRule struct {
	port  string
	roles []string
}

func newNetwork(w *World) *Network {
	return &Network{w: w, def: DefaultLinkSpec, stream: w.Rand("network")}
}

func (n *Network) grow(size int) {
	for len(n.links) < size {
		n.links = append(n.links, nil)
		n.cuts = append(n.cuts, nil)
		n.lastAt = append(n.lastAt, nil)
	}
	for i := 0; i < size; i++ {
		for len(n.links[i]) < size {
			n.links[i] = append(n.links[i], nil)
			n.cuts[i] = append(n.cuts[i], 0)
			n.lastAt[i] = append(n.lastAt[i], 0)
		}
	}
}

// SetDefault sets the spec of every link without an override.
func (n *Network) SetDefault(s LinkSpec) { n.def = s }

// SetLink overrides the spec of the from->to direction.
func (n *Network) SetLink(from, to HostID, s LinkSpec) { n.links[from][to] = &s }

// Link returns the spec in force from->to, including any flaky overlay: the
// worst of each field wins.
func (n *Network) Link(from, to HostID) LinkSpec {
	s := n.def
	if o := n.links[from][to]; o != nil {
		s = *o
	}
	for i := range n.overlays {
		o := &n.overlays[i]
		if containsHost(o.hosts, from) || containsHost(o.hosts, to) {
			s = worse(s, o.spec)
		}
	}
	return s
}

func worse(a, b LinkSpec) LinkSpec {
	a.Latency = max(a.Latency, b.Latency)
	a.Jitter = max(a.Jitter, b.Jitter)
	a.Loss = max(a.Loss, b.Loss)
	a.Dup = max(a.Dup, b.Dup)
	a.Reorder = max(a.Reorder, b.Reorder)
	return a
}

func containsHost(hs []HostID, h HostID) bool {
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

// AllowOnly restricts port so that only hosts with one of roles may send to
// it. A message that breaks the rule is refused and traced as KindRefuse;
// the access check turns that into a failure.
func (n *Network) AllowOnly(port string, roles ...string) {
	n.rules = append(n.rules, portRule{port: port, roles: roles})
}

func (n *Network) allowed(from HostID, port string) bool {
	role := n.w.hosts[from].role
	for _, r := range n.rules {
		if r.port != port {
			continue
		}
		ok := false
		for _, allowed := range r.roles {
			if allowed == role {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// Cut blocks from->to until a matching Uncut.
func (n *Network) Cut(from, to HostID) { n.cuts[from][to]++ }

// Uncut removes one Cut of from->to.
func (n *Network) Uncut(from, to HostID) {
	if n.cuts[from][to] > 0 {
		n.cuts[from][to]--
	}
}

// Connected reports whether from->to is not cut.
func (n *Network) Connected(from, to HostID) bool { return n.cuts[from][to] == 0 }

// HealAll removes every cut and every flaky overlay.
func (n *Network) HealAll() {
	for i := range n.cuts {
		for j := range n.cuts[i] {
			n.cuts[i][j] = 0
		}
	}
	n.overlays = nil
}

// Partition cuts every link between hosts of different groups, both ways.
// Hosts named in no group keep every link. It returns the cuts it made, for
// Restore.
func (n *Network) Partition(groups [][]HostID) [][2]HostID {
	var made [][2]HostID
	for gi, g := range groups {
		for gj, other := range groups {
			if gi == gj {
				continue
			}
			for _, a := range g {
				for _, b := range other {
					if a != b {
						n.Cut(a, b)
						made = append(made, [2]HostID{a, b})
					}
				}
			}
		}
	}
	return made
}

// Isolate cuts h off from every other host, both ways.
func (n *Network) Isolate(h HostID) [][2]HostID {
	var made [][2]HostID
	for i := range n.w.hosts {
		o := HostID(i)
		if o == h {
			continue
		}
		n.Cut(h, o)
		n.Cut(o, h)
		made = append(made, [2]HostID{h, o}, [2]HostID{o, h})
	}
	return made
}

// Restore undoes cuts returned by Partition or Isolate.
func (n *Network) Restore(cuts [][2]HostID) {
	for _, c := range cuts {
		n.Uncut(c[0], c[1])
	}
}

func (n *Network) addOverlay(hosts []HostID, s LinkSpec) uint64 {
	id := n.w.newID()
	n.overlays = append(n.overlays, overlay{id: id, hosts: hosts, spec: s})
	return id
}

func (n *Network) removeOverlay(id uint64) {
	for i := range n.overlays {
		if n.overlays[i].id == id {
			n.overlays = append(n.overlays[:i], n.overlays[i+1:]...)
			return
		}
	}
}

// Send puts a message on the fabric from host h. It returns the message id.
// A message to a cut link, a lost one, or one that breaks a role rule is
// traced and never delivered.
func (h *Host) Send(to HostID, port string, payload any) uint64 {
	return h.send(to, port, payload, 0)
}

func (h *Host) send(to HostID, port string, payload any, toInc uint64) uint64 {
	n := h.w.net
	w := h.w
	id := w.newID()
	if h.state != hostUp || h.paused {
		return id
	}
	w.emit(KindSend, h.id, to, id, port, "")
	if !n.allowed(h.id, port) {
		w.emit(KindRefuse, h.id, to, id, port, "role")
		return id
	}
	if !n.Connected(h.id, to) {
		w.emit(KindDrop, h.id, to, id, port, "partition")
		return id
	}
	spec := n.Link(h.id, to)
	if spec.Loss > 0 && n.stream.Float64() < spec.Loss {
		w.emit(KindDrop, h.id, to, id, port, "loss")
		return id
	}
	d := w.newDelivery()
	d.msg = Message{ID: id, From: h.id, To: to, Port: port, Payload: payload, FromInc: h.incarnation, ToInc: toInc, SentAt: w.now}
	n.enqueue(d, spec)
	if spec.Dup > 0 && n.stream.Float64() < spec.Dup {
		dup := w.newDelivery()
		dup.msg = d.msg
		n.enqueue(dup, spec)
	}
	return id
}

func (n *Network) enqueue(d *delivery, spec LinkSpec) {
	m := &d.msg
	at := n.w.now.Add(time.Duration(Jitter(n.stream, int64(spec.Latency), int64(spec.Jitter))))
	last := &n.lastAt[m.From][m.To]
	if spec.Reorder > 0 && n.stream.Float64() < spec.Reorder {
		// This one may overtake or be overtaken: it ignores the FIFO floor
		// and takes up to one more base latency on top.
		at = at.Add(time.Duration(Jitter(n.stream, 0, int64(spec.Latency)+1)))
	} else {
		if at < *last {
			at = *last
		}
		*last = at
	}
	n.w.schedule(&d.e, at)
}

// deliver hands a message to its port's handler, or drops it, and recycles
// the delivery unless a paused host keeps it for later.
func (n *Network) deliver(d *delivery) {
	w := n.w
	m := &d.msg
	h := w.hosts[m.To]
	switch {
	case h.state != hostUp:
		w.emit(KindDrop, m.To, m.From, m.ID, m.Port, "down")
	case m.ToInc != 0 && m.ToInc != h.incarnation:
		w.emit(KindDrop, m.To, m.From, m.ID, m.Port, "stale")
	case !n.Connected(m.From, m.To):
		w.emit(KindDrop, m.To, m.From, m.ID, m.Port, "partition")
	case h.paused:
		h.deferred = append(h.deferred, &d.e)
		return
	default:
		fn := h.ports[m.Port]
		if fn == nil {
			w.emit(KindDrop, m.To, m.From, m.ID, m.Port, "no-listener")
			break
		}
		w.emit(KindDeliver, m.To, m.From, m.ID, m.Port, "")
		fn(m)
	}
	w.freeDelivery(d)
}
