package sim

import "strconv"

// Kind classifies a trace event. The kernel's own kinds come first; events
// that nodes add carry KindNode and say what they are through their Data.
type Kind uint8

// The kinds of trace event.
const (
	KindSend    Kind = iota + 1 // a message left its sender
	KindDeliver                 // a message reached a listening port
	KindDrop                    // a message was lost; Name gives the reason
	KindRefuse                  // a message broke a role rule on the fabric
	KindTimer                   // a host timer fired
	KindFault                   // a fault was injected or healed; Name says which
	KindNode                    // an event added by a simulated process; see Data
)

var kindNames = [...]string{"", "send", "deliver", "drop", "refuse", "timer", "fault", "node"}

// String returns the kind's short lower-case name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Data is the payload of an event that a simulated process adds to the trace:
// a Raft role change, an applied entry, a client call. It prints itself, and
// that text is what the trace hash covers, so two runs agree exactly when
// their printed traces agree.
type Data interface {
	// TraceKind names the event, dotted by component, e.g. "raft.role".
	TraceKind() string
	// AppendText appends a one-line human-readable form of the fields.
	AppendText(b []byte) []byte
}

// Event is one typed entry of the trace. Subscribers receive a pointer that
// is only valid during the call: copy what must be kept.
type Event struct {
	Seq  uint64 // position in the trace, from 0
	At   Time
	Kind Kind
	Host HostID // where it happened, or NoHost
	Peer HostID // the other end of a message, or NoHost
	ID   uint64 // message or timer identity
	Port string // destination port of a message
	Name string // timer name, fault name or drop reason
	Data Data   // set for KindNode events
}

// Subscriber consumes trace events as they happen.
type Subscriber func(e *Event)

// Trace is the world's event stream. It hashes every event into a 64-bit
// fingerprint and hands each to its subscribers; it keeps nothing else, so a
// long run costs no memory unless a subscriber records.
type Trace struct {
	subs []Subscriber
	hash uint64
	n    uint64
	buf  []byte
	ev   Event
}

const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

func newTrace() *Trace { return &Trace{hash: fnvOffset, buf: make([]byte, 0, 256)} }

// Subscribe adds fn; it sees every event emitted from now on, in order.
func (t *Trace) Subscribe(fn Subscriber) { t.subs = append(t.subs, fn) }

// Hash is the determinism fingerprint: an FNV-1a hash over the canonical
// encoding of every event so far.
func (t *Trace) Hash() uint64 { return t.hash }

// Len is the number of events emitted so far.
func (t *Trace) Len() uint64 { return t.n }

func (t *Trace) emit(e *Event) {
	e.Seq = t.n
	t.n++
	h := t.hash
	h = hashU64(h, uint64(e.At))
	h = hashU64(h, uint64(e.Kind)|uint64(uint32(e.Host))<<8|uint64(uint32(e.Peer))<<40)
	h = hashU64(h, e.ID)
	h = hashString(h, e.Port)
	h = hashString(h, e.Name)
	if e.Data != nil {
		h = hashString(h, e.Data.TraceKind())
		t.buf = e.Data.AppendText(t.buf[:0])
		h = hashBytes(h, t.buf)
	}
	t.hash = h
	for _, s := range t.subs {
		s(e)
	}
}

func hashU64(h, v uint64) uint64 {
	for i := 0; i < 8; i++ {
		h ^= v & 0xff
		h *= fnvPrime
		v >>= 8
	}
	return h
}

func hashString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	h ^= 0xff // terminator, so that ("ab","c") and ("a","bc") differ
	return h * fnvPrime
}

func hashBytes(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	h ^= 0xff
	return h * fnvPrime
}
