package sim

// entryKind says what an entry in the event queue does when it fires.
type entryKind uint8

const (
	entryTimer entryKind = iota
	entryDeliver
	entryFunc
	entryFsync
)

// entry is one scheduled event. Timers own their entry for life, so arming a
// timer again allocates nothing; deliveries come from the world's free list
// (see delivery) and world callbacks get a fresh one.
type entry struct {
	at    Time
	seq   uint64
	index int // position in the heap, -1 when not queued
	kind  entryKind
	timer *Timer
	dv    *delivery
	fsync *fsyncOp
	fn    func()
	name  string
}

// delivery is a message in flight together with its queue entry: one
// allocation per message, recycled through World.freeDeliveries once the
// message has been delivered or dropped (handlers get the *Message only for
// the duration of the call).
type delivery struct {
	e   entry
	msg Message
}

// newDelivery takes a delivery from the free list, or allocates one.
func (w *World) newDelivery() *delivery {
	if d := takeFree(&w.freeDeliveries); d != nil {
		return d
	}
	d := &delivery{}
	d.e = entry{kind: entryDeliver, dv: d, index: -1}
	return d
}

// takeFree takes the item freed last off a free list (deliveries, fsyncs),
// or returns nil when the list is empty.
func takeFree[T any](free *[]*T) *T {
	n := len(*free)
	if n == 0 {
		return nil
	}
	x := (*free)[n-1]
	(*free)[n-1] = nil
	*free = (*free)[:n-1]
	return x
}

// freeDelivery returns d to the free list; nothing may refer to it any more.
func (w *World) freeDelivery(d *delivery) {
	d.msg = Message{}
	w.freeDeliveries = append(w.freeDeliveries, d)
}

// eventQueue is a binary min-heap of entries ordered by (at, seq). It is
// hand-rolled rather than container/heap so that no interface boxing happens
// per event.
type eventQueue struct {
	items []*entry
}

func (q *eventQueue) Len() int { return len(q.items) }

func (q *eventQueue) push(e *entry) {
	e.index = len(q.items)
	q.items = append(q.items, e)
	q.up(e.index)
}

func (q *eventQueue) peek() *entry { return q.items[0] }

// pop takes the first entry out of the queue.
func (q *eventQueue) pop() *entry {
	e := q.items[0]
	q.remove(e)
	return e
}

// remove takes e out of the queue wherever it is.
func (q *eventQueue) remove(e *entry) {
	i := e.index
	n := len(q.items) - 1
	last := q.items[n]
	q.items[n] = nil
	q.items = q.items[:n]
	if i != n {
		place(q.items, i, last)
		q.fix(i)
	}
	e.index = -1
}

func (q *eventQueue) fix(i int) {
	if !q.down(i) {
		q.up(i)
	}
}

// up and down move an entry through a hole rather than by swaps: one
// pointer write per level instead of two.
func (q *eventQueue) up(j int) {
	items := q.items
	e := items[j]
	for j > 0 {
		i := (j - 1) / 2
		p := items[i]
		if !entryLess(e, p) {
			break
		}
		place(items, j, p)
		j = i
	}
	place(items, j, e)
}

func (q *eventQueue) down(i0 int) bool {
	items := q.items
	n := len(items)
	i := i0
	e := items[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		c := items[l]
		if r := l + 1; r < n && entryLess(items[r], c) {
			j, c = r, items[r]
		}
		if !entryLess(c, e) {
			break
		}
		place(items, i, c)
		i = j
	}
	place(items, i, e)
	return i > i0
}

// place puts e at position i of the heap's items, where its index keeps
// it (remove finds an entry by it).
func place(items []*entry, i int, e *entry) {
	items[i] = e
	e.index = i
}

func entryLess(a, b *entry) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}
