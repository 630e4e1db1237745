package checks

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// genStore is the store a generated group history runs against: one
// revision, and each key's value, version, mod and create revisions.
type genStore struct {
	rev  int64
	keys map[string]etcdtrace.ReadKV
	// blind marks the keys last changed by an operation whose outcome its
	// client never learned: a client cannot know their mod revision.
	blind map[string]bool
}

// read returns the present keys in [key, end) (end "": key alone), in key
// order.
func (s *genStore) read(key, end string) []etcdtrace.ReadKV {
	var out []etcdtrace.ReadKV
	for k, kv := range s.keys { // determinism: sorted below
		if k == key || end != "" && k > key && k < end {
			out = append(out, kv)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// write puts value under key at revision rev.
func (s *genStore) write(key, value string, rev int64) {
	kv, ok := s.keys[key]
	if !ok {
		kv = etcdtrace.ReadKV{Key: key, CreateRev: rev}
	}
	kv.Value, kv.ModRev, kv.Version = value, rev, kv.Version+1
	s.keys[key] = kv
}

// genGroupHistory generates a linearizable history on nGroups groups of 3
// keys ("k00.0".."k00.2" is group 0, and so on), with etcd's revisions: gets
// of a key and range reads of a group, puts, deletes, and multi-op txns
// within a group (half of them guarded by a mod-revision compare that may
// hold or not, with a range read of the group when it does not). Each
// operation takes effect at a random point inside its interval, and
// answers (values, versions, mod and create revisions, header revisions)
// come from applying the operations in the order of those points to one
// store. Some writes fail (no effect) or time out (effect or not).
func genGroupHistory(rng *rand.Rand, nOps, nGroups, nClients int) []histOp {
	type planned struct {
		histOp
		lp      int64
		applies bool
	}
	key := func(g, i int) string { return fmt.Sprintf("k%02d.%d", g, i) }
	ops := make([]planned, 0, nOps)
	clock := make([]int64, nClients)
	for i := range nOps {
		c := rng.IntN(nClients)
		call := clock[c] + rng.Int64N(300)
		lp := call + 1 + rng.Int64N(500)
		ret := lp + 1 + rng.Int64N(500)
		clock[c] = ret
		g := rng.IntN(nGroups)
		o := histOp{Client: fmt.Sprintf("c%d", c), Key: key(g, rng.IntN(3)), Call: call, Return: ret, Outcome: etcdtrace.OutcomeOK}
		switch p := rng.IntN(100); {
		case p < 30:
			o.Kind = etcdtrace.OpGet
		case p < 40:
			o.Kind, o.Key, o.End = etcdtrace.OpGet, key(g, 0), key(g+1, 0)
		case p < 65:
			o.Kind, o.Value = etcdtrace.OpPut, fmt.Sprintf("v%d", i)
		case p < 75:
			o.Kind = etcdtrace.OpDelete
		default:
			o.Kind, o.Key = etcdtrace.OpTxn, ""
			for j, k := range rng.Perm(3) {
				op := etcdtrace.TxnOp{Key: key(g, k)}
				switch x := rng.IntN(10); {
				case x < 5 || j == 2:
					op.Type, op.Value = etcdtrace.TxnPut, fmt.Sprintf("v%d.%d", i, j)
				case x < 7:
					op.Type = etcdtrace.TxnDelete
				default:
					op.Type = etcdtrace.TxnRange
				}
				o.Ops = append(o.Ops, op)
			}
			if rng.IntN(2) == 0 {
				o.Compares = []etcdtrace.Compare{{Key: key(g, rng.IntN(3)), Target: etcdtrace.CmpMod}} // filled in at lp
				o.Ops = append(o.Ops, etcdtrace.TxnOp{Else: true, Type: etcdtrace.TxnRange, Key: key(g, 0), End: key(g+1, 0)})
			}
		}
		applies := true
		if o.Kind.Writes() {
			switch p := rng.IntN(100); {
			case p < 3:
				o.Outcome, applies = etcdtrace.OutcomeFail, false
			case p < 6:
				o.Outcome, applies = etcdtrace.OutcomeUnknown, rng.IntN(2) == 0
			}
		}
		ops = append(ops, planned{histOp: o, lp: lp, applies: applies})
	}
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ops[order[a]].lp < ops[order[b]].lp })
	st := &genStore{rev: 1, keys: map[string]etcdtrace.ReadKV{}, blind: map[string]bool{}}
	for _, i := range order {
		o := &ops[i]
		if len(o.Compares) > 0 {
			// The compare holds, or is off by one, at random; a client
			// compares a mod revision it cannot know with 0.
			c := &o.Compares[0]
			c.ModRev = st.keys[c.Key].ModRev + int64(rng.IntN(2))
			if st.blind[c.Key] {
				c.ModRev = 0
			}
		}
		if !o.applies {
			continue
		}
		genApply(st, &o.histOp)
		for _, k := range writtenKeys(&o.histOp) {
			st.blind[k] = o.Outcome != etcdtrace.OutcomeOK
		}
	}
	out := make([]histOp, len(ops))
	for i := range ops {
		out[i] = ops[i].histOp
	}
	return out
}

// genApply runs one operation against the store and records its answer.
func genApply(st *genStore, o *histOp) {
	next := st.rev + 1
	wrote := false
	switch o.Kind {
	case etcdtrace.OpGet:
		kvs := st.read(o.Key, o.End)
		if o.End != "" {
			o.KVs = kvs
		} else if len(kvs) == 1 {
			o.Found, o.Got, o.Version, o.ModRev, o.Create = true, kvs[0].Value, kvs[0].Version, kvs[0].ModRev, kvs[0].CreateRev
		}
	case etcdtrace.OpPut:
		st.write(o.Key, o.Value, next)
		wrote = true
	case etcdtrace.OpDelete:
		_, o.Succeeded = st.keys[o.Key]
		delete(st.keys, o.Key)
		wrote = o.Succeeded
	case etcdtrace.OpTxn:
		o.Succeeded = len(o.Compares) == 0 || st.keys[o.Compares[0].Key].ModRev == o.Compares[0].ModRev
		n := 0
		for _, op := range o.Ops {
			if op.Else == o.Succeeded {
				continue
			}
			switch op.Type {
			case etcdtrace.TxnPut:
				st.write(op.Key, op.Value, next)
				wrote = true
			case etcdtrace.TxnDelete:
				if _, ok := st.keys[op.Key]; ok {
					delete(st.keys, op.Key)
					wrote = true
				}
			case etcdtrace.TxnRange:
				for _, kv := range st.read(op.Key, op.End) {
					kv.Op = n
					o.KVs = append(o.KVs, kv)
				}
			}
			n++
		}
	}
	if wrote {
		st.rev = next
	}
	o.Rev = st.rev
}

// writtenKeys lists the keys an operation may write.
func writtenKeys(o *histOp) []string {
	switch o.Kind {
	case etcdtrace.OpPut, etcdtrace.OpDelete:
		return []string{o.Key}
	case etcdtrace.OpTxn:
		var ks []string
		for _, op := range o.Ops {
			if op.Type != etcdtrace.TxnRange {
				ks = append(ks, op.Key)
			}
		}
		return ks
	}
	return nil
}
