package checks

import (
	"slices"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// kvTouch is what one operation touches: the keys it names and the ranges
// it reads. A list and a historical get touch nothing here: the
// linearizability check leaves them to historical-reads.
func kvTouch(in KVInput, out KVOutput) (keys []string, ranges []keyRange) {
	switch {
	case in.Kind == etcdtrace.OpList || in.Rev != 0:
		return nil, nil
	case in.Kind == etcdtrace.OpTxn:
		for _, c := range in.Compares {
			keys = append(keys, c.Key)
		}
		for _, op := range in.Ops {
			if op.Type == etcdtrace.TxnRange {
				ranges = append(ranges, keyRange{op.Key, op.End})
			} else {
				keys = append(keys, op.Key)
			}
		}
	case in.End != "":
		ranges = append(ranges, keyRange{in.Key, in.End})
	default:
		keys = append(keys, in.Key)
	}
	for _, kv := range out.KVs {
		keys = append(keys, kv.Key)
	}
	return keys, ranges
}

// kvComponents splits n operations into the connected components of the
// keys they touch together (touch gives operation i's keys and ranges; a
// range touches every key of the history that falls in it). It returns
// the components' names, sorted (their keys joined by commas, or the range
// of a read that touched no key), and each operation's component.
func kvComponents(n int, touch func(i int) ([]string, []keyRange)) (names []string, comp []int) {
	keys := map[string]int{}
	var universe []string
	opKeys := make([][]string, n)
	opRanges := make([][]keyRange, n)
	for i := range n {
		opKeys[i], opRanges[i] = touch(i)
		for _, k := range opKeys[i] {
			if _, ok := keys[k]; !ok {
				keys[k] = 0
				universe = append(universe, k)
			}
		}
	}
	sort.Strings(universe)
	for i, k := range universe {
		keys[k] = i
	}
	// Nodes: the keys, then one per operation.
	uf := newUnionFind(len(universe) + n)
	for i := range n {
		op := len(universe) + i
		for _, k := range opKeys[i] {
			uf.union(op, keys[k])
		}
		for _, r := range opRanges[i] {
			for j := sort.SearchStrings(universe, r.key); j < len(universe) && r.contains(universe[j]); j++ {
				uf.union(op, j)
			}
		}
	}
	rootKeys := map[int][]string{}
	for i, k := range universe {
		r := uf.find(i)
		rootKeys[r] = append(rootKeys[r], k)
	}
	nameOf := make([]string, n)
	for i := range n {
		r := uf.find(len(universe) + i)
		if ks := rootKeys[r]; len(ks) > 0 {
			nameOf[i] = strings.Join(ks, ",")
		} else {
			nameOf[i] = emptyComponentName(opRanges[i])
		}
	}
	names = slices.Clone(nameOf)
	slices.Sort(names)
	names = slices.Compact(names)
	comp = make([]int, n)
	for i := range n {
		comp[i], _ = slices.BinarySearch(names, nameOf[i])
	}
	return names, comp
}

// emptyComponentName names the component of an operation that touched no
// key of the history: a read of ranges where nothing ever was.
func emptyComponentName(ranges []keyRange) string {
	var b strings.Builder
	for i, r := range ranges {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("[" + r.key + ".." + r.end + ")")
	}
	return b.String()
}

// partitionKVOps is KVModel's Partition: the history split by component,
// each in history order, in component name order.
func partitionKVOps(h []porcupine.Operation) [][]porcupine.Operation {
	names, comp := kvComponents(len(h), func(i int) ([]string, []keyRange) {
		return kvTouch(h[i].Input.(KVInput), h[i].Output.(KVOutput))
	})
	parts := make([][]porcupine.Operation, len(names))
	for i, op := range h {
		parts[comp[i]] = append(parts[comp[i]], op)
	}
	return parts
}

// partitionKVEvents is KVModel's PartitionEvent (a return goes with its
// call, by Id; the keys a return read join its call's).
func partitionKVEvents(h []porcupine.Event) [][]porcupine.Event {
	type opEvents struct {
		in  KVInput
		out KVOutput
	}
	byID := map[int]int{}
	var ops []opEvents
	for _, ev := range h {
		i, ok := byID[ev.Id]
		if !ok {
			i = len(ops)
			byID[ev.Id] = i
			ops = append(ops, opEvents{})
		}
		if ev.Kind == porcupine.CallEvent {
			ops[i].in = ev.Value.(KVInput)
		} else {
			ops[i].out = ev.Value.(KVOutput)
		}
	}
	names, comp := kvComponents(len(ops), func(i int) ([]string, []keyRange) { return kvTouch(ops[i].in, ops[i].out) })
	parts := make([][]porcupine.Event, len(names))
	for _, ev := range h {
		c := comp[byID[ev.Id]]
		parts[c] = append(parts[c], ev)
	}
	return parts
}

// unionFind is a disjoint-set forest over 0..n-1.
type unionFind struct{ parent []int }

func newUnionFind(n int) *unionFind {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return &unionFind{parent: p}
}

func (u *unionFind) find(x int) int {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

// union joins the sets of a and b; the smaller root stays root, so that
// roots do not depend on the order of unions.
func (u *unionFind) union(a, b int) {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	u.parent[rb] = ra
}
