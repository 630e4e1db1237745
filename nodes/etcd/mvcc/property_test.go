package mvcc

import (
	"bytes"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// model is a naive reference: the full key set at every revision, and every
// event ever made.
type model struct {
	states [][]KeyValue // states[rev], sorted by key; states[0] unused
	events []Event
	compac int64
}

func newModel() *model { return &model{states: [][]KeyValue{nil, nil}, compac: -1} }

func (m *model) rev() int64 { return int64(len(m.states) - 1) }

// find returns the index of k in state, or -1.
func find(state []KeyValue, k string) int {
	for i, kv := range state {
		if string(kv.Key) == k {
			return i
		}
	}
	return -1
}

// write applies the puts and deletes of one txn as one revision.
func (m *model) write(ops []Op) {
	next := m.rev() + 1
	state := append([]KeyValue(nil), m.states[m.rev()]...)
	var evs []Event
	for _, op := range ops {
		switch op.Type {
		case OpPut:
			nkv := KeyValue{Key: b(string(op.Key)), Value: cloneBytes(op.Value), CreateRevision: next, ModRevision: next, Version: 1}
			if i := find(state, string(op.Key)); i >= 0 {
				nkv.CreateRevision, nkv.Version = state[i].CreateRevision, state[i].Version+1
				state[i] = nkv
			} else {
				state = append(state, nkv)
			}
			evs = append(evs, Event{Type: EventPut, Kv: nkv})
		case OpDelete:
			r := newKeyRange(op.Key, op.End)
			kept := state[:0:0]
			for _, kv := range state {
				if r.contains(string(kv.Key)) {
					evs = append(evs, Event{Type: EventDelete, Kv: KeyValue{Key: kv.Key, ModRevision: next}})
					continue
				}
				kept = append(kept, kv)
			}
			state = kept
		}
		sort.Slice(state, func(i, j int) bool { return bytes.Compare(state[i].Key, state[j].Key) < 0 })
	}
	if len(evs) == 0 {
		return
	}
	if len(state) == 0 {
		state = nil
	}
	m.states = append(m.states, state)
	m.events = append(m.events, evs...)
}

// holds evaluates a version or value compare on one key.
func (m *model) holds(c Compare) bool {
	state := m.states[m.rev()]
	i := find(state, string(c.Key))
	if c.Target == CompareValue {
		return i >= 0 && bytes.Equal(state[i].Value, c.Value)
	}
	var v int64
	if i >= 0 {
		v = state[i].Version
	}
	return v == c.Version
}

var propKeys = []string{"a", "b", "c", "d", "e"}

// genOps draws a list of puts and deletes on distinct keys (a valid txn branch).
func genOps(t *rapid.T, label string) []Op {
	n := rapid.IntRange(0, 3).Draw(t, label+"-n")
	perm := rapid.Permutation(propKeys).Draw(t, label+"-keys")
	ops := make([]Op, 0, n)
	for i := 0; i < n; i++ {
		k := perm[i]
		if rapid.IntRange(0, 3).Draw(t, label+"-kind") == 0 {
			ops = append(ops, OpDeleteOf(b(k), nil, false))
			continue
		}
		ops = append(ops, OpPutOf(b(k), b(rapid.SampledFrom([]string{"", "x", "y"}).Draw(t, label+"-v")), PutOptions{}))
	}
	return ops
}

// TestPropertyStoresAgreeWithModel applies random op sequences to two stores
// and a naive model: the stores' hashes and snapshots are identical, reads at
// every uncompacted revision match the model, and a watch started from any
// uncompacted revision replays exactly the model's history from there.
func TestPropertyStoresAgreeWithModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s1, s2, m := New(), New(), newModel()
		live, err := s1.NewWatch(WatchRequest{Key: b("\x00"), End: b("\x00")})
		require.NoError(t, err)
		var seen []Event
		steps := rapid.IntRange(1, 60).Draw(t, "steps")
		for i := 0; i < steps; i++ {
			switch rapid.IntRange(0, 5).Draw(t, "op") {
			case 0, 1: // put
				k := rapid.SampledFrom(propKeys).Draw(t, "k")
				v := rapid.SampledFrom([]string{"", "1", "2"}).Draw(t, "v")
				for _, s := range []*Store{s1, s2} {
					_, err := s.Put(b(k), b(v), PutOptions{})
					require.NoError(t, err)
				}
				m.write([]Op{OpPutOf(b(k), b(v), PutOptions{})})
			case 2: // delete range
				lo := rapid.SampledFrom(propKeys).Draw(t, "lo")
				end := rapid.SampledFrom([]string{"", "c", "f", "\x00"}).Draw(t, "end")
				for _, s := range []*Store{s1, s2} {
					_, err := s.DeleteRange(b(lo), b(end), false)
					require.NoError(t, err)
				}
				m.write([]Op{OpDeleteOf(b(lo), b(end), false)})
			case 3, 4: // txn with a version or value compare
				c := Compare{Key: b(rapid.SampledFrom(propKeys).Draw(t, "ck"))}
				if rapid.Bool().Draw(t, "by-value") {
					c.Target, c.Value = CompareValue, b(rapid.SampledFrom([]string{"", "x", "1"}).Draw(t, "cv"))
				} else {
					c.Target, c.Version = CompareVersion, rapid.Int64Range(0, 3).Draw(t, "cver")
				}
				req := TxnRequest{Compares: []Compare{c}, Success: genOps(t, "then"), Failure: genOps(t, "else")}
				want := m.holds(c)
				for _, s := range []*Store{s1, s2} {
					resp, err := s.Txn(req)
					require.NoError(t, err)
					require.Equal(t, want, resp.Succeeded)
				}
				if want {
					m.write(req.Success)
				} else {
					m.write(req.Failure)
				}
			case 5: // compact
				if m.rev() <= m.compac {
					continue
				}
				rev := rapid.Int64Range(max(m.compac+1, 1), m.rev()).Draw(t, "compact")
				require.NoError(t, s1.Compact(rev))
				require.NoError(t, s2.Compact(rev))
				m.compac = rev
			}
			seen = append(seen, eventsOf(t, s1.Drain(), live)...)
			require.Equal(t, m.rev(), s1.Rev())
			require.Equal(t, s1.Hash(), s2.Hash())
		}
		require.Equal(t, s1.Snapshot(), s2.Snapshot())
		require.Equal(t, m.events, seen, "the live watch saw every event once, in order")

		for rev := max(m.compac, 1); rev <= m.rev(); rev++ {
			rr, err := s1.Range(b("\x00"), b("\x00"), RangeOptions{Rev: rev})
			require.NoError(t, err)
			require.Equal(t, m.states[rev], rr.KVs, "range at %d", rev)
		}
		from := rapid.Int64Range(max(m.compac, 1), m.rev()+1).Draw(t, "watch-from")
		id, err := s1.NewWatch(WatchRequest{Key: b("\x00"), End: b("\x00"), StartRev: from})
		require.NoError(t, err)
		var want []Event
		for _, ev := range m.events {
			if ev.Kv.ModRevision >= from {
				want = append(want, ev)
			}
		}
		require.Equal(t, want, eventsOf(t, s1.Drain(), id), "watch from %d", from)
	})
}

// eventsOf concatenates the events of one watch's responses, checking that
// the responses never split a revision and come in revision order.
func eventsOf(t *rapid.T, resps []WatchResponse, id WatchID) []Event {
	var out []Event
	for _, r := range resps {
		if r.WatchID != id {
			continue
		}
		require.NotEmpty(t, r.Events)
		if len(out) > 0 {
			require.Greater(t, r.Events[0].Kv.ModRevision, out[len(out)-1].Kv.ModRevision, "a revision split across responses")
		}
		require.GreaterOrEqual(t, r.Revision, r.Events[len(r.Events)-1].Kv.ModRevision)
		out = append(out, r.Events...)
	}
	return out
}
