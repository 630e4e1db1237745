package sim

// entryKind says what an entry in the event queue does when it fires.
type entryKind uint8

const (
	entryTimer entryKind = iota
	entryDeliver
	entryFunc
)

// entry is one scheduled event. Timers own their entry for life, so arming a
// timer again allocates nothing; deliveries and world callbacks get a fresh one.
type entry struct {
	at    Time
	seq   uint64
	index int // position in the heap, -1 when not queued
	kind  entryKind
	timer *Timer
	msg   *Message
	fn    func()
	name  string
}

// eventQueue is a binary min-heap of entries ordered by (at, seq). It is
// hand-rolled rather than container/heap so that no interface boxing happens
// per event.
type eventQueue struct {
	items []*entry
}

func (q *eventQueue) less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

func (q *eventQueue) swap(i, j int) {
	q.items[i], q.items[j] = q.items[j], q.items[i]
	q.items[i].index = i
	q.items[j].index = j
}

func (q *eventQueue) Len() int { return len(q.items) }

func (q *eventQueue) push(e *entry) {
	e.index = len(q.items)
	q.items = append(q.items, e)
	q.up(e.index)
}

func (q *eventQueue) peek() *entry { return q.items[0] }

func (q *eventQueue) pop() *entry {
	n := len(q.items) - 1
	q.swap(0, n)
	e := q.items[n]
	q.items[n] = nil
	q.items = q.items[:n]
	if n > 0 {
		q.down(0)
	}
	e.index = -1
	return e
}

// remove takes e out of the queue wherever it is.
func (q *eventQueue) remove(e *entry) {
	i := e.index
	n := len(q.items) - 1
	if i != n {
		q.swap(i, n)
	}
	q.items[n] = nil
	q.items = q.items[:n]
	if i != n {
		q.fix(i)
	}
	e.index = -1
}

func (q *eventQueue) fix(i int) {
	if !q.down(i) {
		q.up(i)
	}
}

func (q *eventQueue) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !q.less(j, i) {
			break
		}
		q.swap(i, j)
		j = i
	}
}

func (q *eventQueue) down(i0 int) bool {
	i, n := i0, len(q.items)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && q.less(r, l) {
			j = r
		}
		if !q.less(j, i) {
			break
		}
		q.swap(i, j)
		i = j
	}
	return i > i0
}
