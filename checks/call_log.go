package checks

import (
	"math"

	"github.com/anishathalye/porcupine"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// callID names a call: its client and the client's op number.
type callID struct {
	client string
	op     uint64
}

// takeCall removes the pending call of client's op number op from calls
// and returns it; ok is false when none was pending (a call the check did
// not follow). Checks call it on the Return that settles a call.
func takeCall[V any](calls map[callID]V, client string, op uint64) (v V, ok bool) {
	id := callID{client, op}
	if v, ok = calls[id]; ok {
		delete(calls, id)
	}
	return v, ok
}

// apiWorkload is a check of a workload's API calls, judged by how each
// call returned and by the servers' final state. Its call says what to
// keep of a call of the workload (C), or false for a call it does not
// follow; its ret gets that back with the call's Return.
type apiWorkload[C any] interface {
	call(d *apitrace.Call) (C, bool)
	ret(e *sim.Event, d *apitrace.Return, call C)
	serverState(e *sim.Event, d *apitrace.ServerState)
}

// observeAPIWorkload hands e to w if it is an API call, a return or a
// server's final state: the Observe of an apiWorkload. It keeps w's calls
// in flight in calls, from the Call that w keeps to its Return, so that
// what is left there at the end was never answered.
func observeAPIWorkload[C any](w apiWorkload[C], calls map[callID]C, e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *apitrace.Call:
		if call, keep := w.call(d); keep {
			calls[callID{d.Client, d.Op}] = call
		}
	case *apitrace.Return:
		if call, ok := takeCall(calls, d.Client, d.Op); ok {
			w.ret(e, d, call)
		}
	case *apitrace.ServerState:
		w.serverState(e, d)
	}
}

// callRecord is where one recorded call came from: its client (an index
// into the log's client names), the client's op number, and its Call and
// (if one came) Return events.
type callRecord struct {
	client   int
	op       uint64
	call     sim.Time
	callSeq  uint64
	returned bool
	ret      sim.Time
	retSeq   uint64
}

// operation is the call as porcupine sees it, with input in and output
// out. A call of unknown outcome returns at +infinity, so that it may take
// effect at any point after its call, or never (by being ordered after
// everything else).
func (r *callRecord) operation(in, out any, unknown bool) porcupine.Operation {
	ret := int64(r.ret)
	if unknown {
		ret = math.MaxInt64
	}
	return porcupine.Operation{ClientId: r.client, Input: in, Call: int64(r.call), Output: out, Return: ret}
}

// loggedCall is one call of a callLog: where it came from, what the client
// asked (in) and, once it returned, what it was told (out).
type loggedCall[I, O any] struct {
	callRecord
	in  I
	out O
}

// callLog pairs clients' Call and Return events into calls, kept in call
// order. Both linearizability checks record their histories in one.
type callLog[I, O any] struct {
	calls     chunkedList[loggedCall[I, O]]
	pending   map[callID]int // call -> index in calls, until it returns
	clientIDs map[string]int
	clients   []string
	orphans   int // returns without a call
}

func newCallLog[I, O any]() callLog[I, O] {
	return callLog[I, O]{pending: map[callID]int{}, clientIDs: map[string]int{}}
}

// call records the Call event e of client's op, which asked in.
func (l *callLog[I, O]) call(e *sim.Event, client string, op uint64, in I) {
	ci, ok := l.clientIDs[client]
	if !ok {
		ci = len(l.clients)
		l.clientIDs[client] = ci
		l.clients = append(l.clients, client)
	}
	l.pending[callID{client, op}] = l.calls.len()
	l.calls.add(loggedCall[I, O]{callRecord: callRecord{client: ci, op: op, call: e.At, callSeq: e.Seq}, in: in})
}

// ret records the Return event e of client's op, which was told out. A
// return without a call is counted and otherwise ignored.
func (l *callLog[I, O]) ret(e *sim.Event, client string, op uint64, out O) {
	i, ok := takeCall(l.pending, client, op)
	if !ok {
		l.orphans++
		return
	}
	c := l.calls.at(i)
	c.returned, c.ret, c.retSeq, c.out = true, e.At, e.Seq, out
}

// len is the number of calls recorded.
func (l *callLog[I, O]) len() int { return l.calls.len() }

// at is the i-th call, in call order.
func (l *callLog[I, O]) at(i int) *loggedCall[I, O] { return l.calls.at(i) }

// record implements callSource.
func (l *callLog[I, O]) record(i int) (*callRecord, string) {
	c := l.calls.at(i)
	return &c.callRecord, l.clients[c.client]
}

// keyed builds the per-key porcupine histories of the log: entry gives a
// call's key and operation, or false to leave the call out.
func (l *callLog[I, O]) keyed(entry func(c *loggedCall[I, O]) (key string, op porcupine.Operation, keep bool)) keyedHistory {
	var b keyedBuilder
	for i := 0; i < l.calls.len(); i++ {
		if key, op, keep := entry(l.calls.at(i)); keep {
			b.add(key, i, op)
		}
	}
	return b.build()
}

// chunkedList is an append-only list in fixed-size chunks, so that growing
// it never copies (or moves) the elements already added.
type chunkedList[T any] struct {
	chunks [][]T
	n      int
}

const listChunk = 256

func (o *chunkedList[T]) len() int { return o.n }

func (o *chunkedList[T]) at(i int) *T { return &o.chunks[i/listChunk][i%listChunk] }

func (o *chunkedList[T]) add(v T) {
	if o.n%listChunk == 0 {
		o.chunks = append(o.chunks, make([]T, 0, listChunk))
	}
	c := &o.chunks[len(o.chunks)-1]
	*c = append(*c, v)
	o.n++
}
