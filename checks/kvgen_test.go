package checks

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// genHistory generates a linearizable KV history: clients issue operations
// one after another, each takes effect at a random point inside its
// interval, and answers are computed by applying the operations in the
// order of those points. Some writes fail (no effect) or time out (effect
// or not, at random); some reads fail. Times are in microseconds.
func genHistory(rng *rand.Rand, nOps, nKeys, nClients int) []histOp {
	type planned struct {
		histOp
		lp      int64 // linearization point
		applies bool
	}
	ops := make([]planned, 0, nOps)
	clock := make([]int64, nClients)
	for i := range nOps {
		c := rng.IntN(nClients)
		call := clock[c] + rng.Int64N(300)
		lp := call + 1 + rng.Int64N(500)
		ret := lp + 1 + rng.Int64N(500)
		clock[c] = ret
		o := histOp{Client: fmt.Sprintf("c%d", c), Key: fmt.Sprintf("k%d", rng.IntN(nKeys)), Call: call, Return: ret, Outcome: etcdtrace.OutcomeOK}
		switch p := rng.IntN(100); {
		case p < 40:
			o.Kind = etcdtrace.OpGet
		case p < 70:
			o.Kind, o.Value = etcdtrace.OpPut, fmt.Sprintf("v%d", i)
		case p < 90:
			o.Kind, o.Value = etcdtrace.OpCAS, fmt.Sprintf("v%d", i)
			if rng.IntN(4) == 0 {
				o.ExpectAbsent = true
			} else if len(ops) > 0 {
				o.Expect = fmt.Sprintf("v%d", max(0, i-1-rng.IntN(min(i, 3*nKeys))))
			}
		default:
			o.Kind = etcdtrace.OpDelete
		}
		applies := true
		switch p := rng.IntN(100); {
		case p < 3:
			o.Outcome, applies = etcdtrace.OutcomeFail, false
		case p < 6:
			o.Outcome, applies = etcdtrace.OutcomeUnknown, rng.IntN(2) == 0
		}
		ops = append(ops, planned{histOp: o, lp: lp, applies: applies})
	}
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ops[order[a]].lp < ops[order[b]].lp })
	state := map[string]string{}
	for _, i := range order {
		o := &ops[i]
		if !o.applies {
			continue
		}
		v, present := state[o.Key]
		switch o.Kind {
		case etcdtrace.OpGet:
			o.Found, o.Got = present, v
		case etcdtrace.OpPut:
			state[o.Key] = o.Value
		case etcdtrace.OpDelete:
			o.Succeeded = present
			delete(state, o.Key)
		case etcdtrace.OpCAS:
			if (o.ExpectAbsent && !present) || (!o.ExpectAbsent && present && v == o.Expect) {
				o.Succeeded = true
				state[o.Key] = o.Value
			}
		}
	}
	out := make([]histOp, len(ops))
	for i := range ops {
		out[i] = ops[i].histOp
	}
	return out
}
