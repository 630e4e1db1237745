package checks

import (
	"cmp"
	"math"
	"slices"

	"github.com/anishathalye/porcupine"
)

// opSegment is one segment of a key's history: the positions of its
// operations in the history, in call order, and the seed operation that
// starts it in the state the segments before it left (nil for the first).
type opSegment struct {
	idx  []int
	seed *porcupine.Operation
}

// apiSegments cuts one object's APIModel history into segments that
// porcupine can check one at a time, each from the state the ones before
// it leave. Porcupine's search keeps, for every state it caches, the set of
// operations linearized so far; on a long history of one object (a counter
// that ten clients write for ten minutes: 85,000 operations) each step
// copies a set as long as the history, so the check costs the square of
// its length. Cut into segments of a few dozen operations, it costs their
// sum.
//
// A cut goes just before an operation C, at time T = C's call, when:
//
//  1. every operation with a known outcome called before T returned
//     before T (none is in flight across T);
//  2. among those, some answered 2xx with a resourceVersion: R, the
//     highest such, answered by O (a get, create or update; value v);
//  3. every write of unknown outcome called before T is an update with a
//     precondition below R, or a create (the object exists from O on);
//  4. the object's history has no delete at all, and every 2xx answer
//     carries a resourceVersion that is a number.
//
// Then every valid linearization of the operations called before T ends
// in the state (v, R), and no write of unknown outcome called before T can
// take effect after T. Proof: take a valid linearization L. Operations
// called after T come after every known operation called before T (they
// returned before T). After O, the object is present with R known (a get
// makes the rv its answer's, a create or update sets it). From there, in
// L, up to the last known operation called before T:
//   - a write of unknown outcome called before T cannot apply: a create
//     needs an absent object, and there is no delete; an update's
//     precondition p < R cannot match: a known rv R' >= R is not p, and
//     an unknown one (after a later write of unknown outcome) is at least
//     its floor, which is at least R (APIModel: revisions only grow);
//   - a known operation's answer has rv at most R (R is the highest), so a
//     get must answer (v, R), an update 2xx must leave it (same rv, same
//     value), and a 409 or 404 changes nothing.
//
// The same argument holds after T for the writes of unknown outcome called
// before T: the rv stays at least R, or unknown with a floor at least R,
// so they never apply again, and may be dropped from the segments after
// the cut (an operation of unknown outcome is legal anywhere as a no-op).
//
// So the history H is linearizable iff its part before T is (from the
// initial state) and its part from T is, from (v, R) without the dead
// writes: given both orders, the first followed by the second is an
// order of H (it respects real time, as everything in the second part was
// called after T, and each state carries over); given an order of H, the
// part up to the last known operation called before T, and the rest
// without the dead writes, are orders of the two parts. By induction the
// same holds for every cut. The seed operation that starts a segment
// (verb apiSeed, returning v at R before any of the segment's calls) puts
// the segment in that state.
//
// Condition 3 is why APIModel keeps a floor under an unknown
// resourceVersion: without it, a write of unknown outcome applied after T
// would let a dead one apply again, and no cut would be sound.
func apiSegments(ops []porcupine.Operation) []opSegment {
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ops[a].Call, ops[b].Call) })
	for _, op := range ops {
		in, out := op.Input.(APIInput), op.Output.(APIOutput)
		if in.Verb == APIDelete {
			return []opSegment{{idx: order}}
		}
		if !out.Unknown && ok2xx(out.Code) {
			if _, ok := rvNumber(out.RV); !ok {
				return []opSegment{{idx: order}}
			}
		}
	}
	var segs []opSegment
	var seed *porcupine.Operation
	maxRet := int64(math.MinInt64)
	best, bestRV := -1, int64(-1) // O and R
	maxPre := int64(-1)           // the highest precondition of an unknown update
	blocked := false              // an unknown update without a numeric precondition
	last := 0
	for n, i := range order {
		op := ops[i]
		if n > last && !blocked && best >= 0 && maxRet < op.Call && maxPre < bestRV {
			segs = append(segs, opSegment{idx: order[last:n], seed: seed})
			seed = apiSeedOp(ops[best], op)
			last = n
		}
		in, out := op.Input.(APIInput), op.Output.(APIOutput)
		if out.Unknown {
			if in.Verb == APIUpdate {
				p, ok := rvNumber(in.Precondition)
				blocked = blocked || !ok
				maxPre = max(maxPre, p)
			}
			continue
		}
		maxRet = max(maxRet, op.Return)
		if ok2xx(out.Code) {
			if rv, _ := rvNumber(out.RV); rv > bestRV {
				best, bestRV = i, rv
			}
		}
	}
	return append(segs, opSegment{idx: order[last:], seed: seed})
}

// apiSeedOp is the seed of a segment whose first operation is first: the
// state O (best) left, returned just before first's call.
func apiSeedOp(best porcupine.Operation, first porcupine.Operation) *porcupine.Operation {
	in, out := best.Input.(APIInput), best.Output.(APIOutput)
	value := in.Value
	if in.Verb == APIGet {
		value = out.Value
	}
	return &porcupine.Operation{ClientId: first.ClientId, Call: first.Call - 1, Return: first.Call - 1,
		Input:  APIInput{Verb: apiSeed, Resource: in.Resource, Key: in.Key},
		Output: APIOutput{Code: 200, Found: true, Value: value, RV: out.RV}}
}

// operations are the segment's operations in part, the seed last, and the
// recorded call of each (-1 for the seed).
func (g opSegment) operations(part []porcupine.Operation, src []int) ([]porcupine.Operation, []int) {
	ops := make([]porcupine.Operation, 0, len(g.idx)+1)
	from := make([]int, 0, len(g.idx)+1)
	for _, i := range g.idx {
		ops = append(ops, part[i])
		from = append(from, src[i])
	}
	if g.seed != nil {
		ops = append(ops, *g.seed)
		from = append(from, -1)
	}
	return ops, from
}
