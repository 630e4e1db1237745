package checks

import (
	"math"
	"strconv"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// genAPIHistory draws one object's history as clients would record it:
// an execution of a real object (a create, then gets and updates, some
// with a stale precondition, rarely a delete), each call linearized at a
// point between its call and its return; some writes never return (their
// outcome unknown) and took effect or not. With corrupt set, one answer is
// then changed, so that the history may no longer be linearizable.
func genAPIHistory(t *rapid.T, corrupt bool) []porcupine.Operation {
	clients := rapid.IntRange(1, 4).Draw(t, "clients")
	n := rapid.IntRange(1, 40).Draw(t, "ops")
	free := make([]int64, clients)
	present, value, rv, next := false, "", int64(0), int64(1)
	var ops []porcupine.Operation
	now := int64(0)
	for k := 0; k < n; k++ {
		now += int64(rapid.IntRange(1, 4).Draw(t, "gap"))
		c := rapid.IntRange(0, clients-1).Draw(t, "client")
		now = max(now, free[c]+1)
		call := max(free[c]+1, now-int64(rapid.IntRange(0, 4).Draw(t, "before")))
		ret := now + int64(rapid.IntRange(0, 4).Draw(t, "after"))
		free[c] = ret
		in := APIInput{Verb: APIGet, Resource: "leases", Key: "default/counter"}
		if k == 0 {
			in.Verb = APICreate
		} else {
			in.Verb = rapid.SampledFrom([]string{APIGet, APIGet, APIUpdate, APIUpdate, APIUpdate, APICreate, APIDelete}).Draw(t, "verb")
			if in.Verb == APIDelete && rapid.IntRange(0, 3).Draw(t, "rare") > 0 {
				in.Verb = APIUpdate
			}
		}
		if in.Verb == APIUpdate {
			switch rapid.IntRange(0, 9).Draw(t, "precondition") {
			case 0:
			case 1, 2:
				in.Precondition = strconv.FormatInt(max(rv-1, 1), 10)
			default:
				in.Precondition = strconv.FormatInt(rv, 10)
			}
		}
		if in.Verb == APICreate || in.Verb == APIUpdate {
			in.Value = "v" + strconv.Itoa(k)
		}
		unknown := in.Verb != APIGet && rapid.IntRange(0, 5).Draw(t, "unknown") == 0
		applies := !unknown || rapid.Bool().Draw(t, "applies")
		out := APIOutput{}
		switch in.Verb {
		case APIGet:
			out.Code = 404
			if present {
				out = APIOutput{Code: 200, Found: true, Value: value, RV: strconv.FormatInt(rv, 10)}
			}
		case APICreate:
			out.Code = 409
			if !present && applies {
				present, value, rv = true, in.Value, next
				out = APIOutput{Code: 201, Found: true, Value: value, RV: strconv.FormatInt(rv, 10)}
			}
		case APIUpdate:
			switch {
			case !present:
				out.Code = 404
			case in.Precondition != "" && in.Precondition != strconv.FormatInt(rv, 10):
				out.Code = 409
			case applies:
				value, rv = in.Value, next
				out = APIOutput{Code: 200, Found: true, Value: value, RV: strconv.FormatInt(rv, 10)}
			}
		case APIDelete:
			out.Code = 404
			if present && applies {
				present, value = false, ""
				out.Code = 200
			}
		}
		next += int64(rapid.IntRange(1, 3).Draw(t, "revisions"))
		if unknown {
			out, ret = APIOutput{Unknown: true}, math.MaxInt64
		}
		ops = append(ops, porcupine.Operation{ClientId: c, Input: in, Output: out, Call: call, Return: ret})
	}
	if corrupt {
		i := rapid.IntRange(0, len(ops)-1).Draw(t, "corrupted")
		o := ops[i].Output.(APIOutput)
		switch rapid.IntRange(0, 3).Draw(t, "corruption") {
		case 0:
			o.Value += "x"
		case 1:
			n, _ := strconv.ParseInt(o.RV, 10, 64)
			o.RV = strconv.FormatInt(n+int64(rapid.IntRange(-2, 2).Draw(t, "by")), 10)
		case 2:
			o.Code = rapid.SampledFrom([]int{200, 404, 409}).Draw(t, "code")
		case 3:
			o.Unknown = !o.Unknown
		}
		ops[i].Output = o
	}
	return ops
}

// segmentedVerdict checks each segment of apiSegments as the
// api-linearizability check does.
func segmentedVerdict(ops []porcupine.Operation) (bool, int) {
	src := make([]int, len(ops))
	segs := apiSegments(ops)
	for _, g := range segs {
		part, _ := g.operations(ops, src)
		if !porcupine.CheckOperations(APIModel, part) {
			return false, len(segs)
		}
	}
	return true, len(segs)
}

// TestAPISegmentsKeepTheVerdict: cutting an object's history into segments
// (apiSegments) never changes porcupine's verdict, on drawn histories
// both linearizable and not. The drawn histories must include cut ones and
// both verdicts, or the property says nothing.
func TestAPISegmentsKeepTheVerdict(t *testing.T) {
	var cut, illegal, legal int
	rapid.Check(t, func(t *rapid.T) {
		ops := genAPIHistory(t, rapid.Bool().Draw(t, "corrupt"))
		whole := porcupine.CheckOperations(APIModel, ops)
		segmented, n := segmentedVerdict(ops)
		if whole != segmented {
			t.Fatalf("whole history: linearizable %v; in %d segments: %v", whole, n, segmented)
		}
		if n > 1 {
			cut++
			if whole {
				legal++
			} else {
				illegal++
			}
		}
	})
	require.Positive(t, legal, "cut histories that are linearizable")
	require.Positive(t, illegal, "cut histories that are not")
	require.Positive(t, cut)
}

// TestAPISegmentsCuts: where apiSegments cuts a hand-built history, and
// where it must not.
func TestAPISegmentsCuts(t *testing.T) {
	op := func(client int, verb, value, pre string, call, ret int64, code int, got, rv string) porcupine.Operation {
		out := APIOutput{Code: code, Found: got != "" || rv != "", Value: got, RV: rv}
		if code == 0 {
			out, ret = APIOutput{Unknown: true}, math.MaxInt64
		}
		return porcupine.Operation{ClientId: client, Call: call, Return: ret, Output: out,
			Input: APIInput{Verb: verb, Resource: "leases", Key: "default/c", Value: value, Precondition: pre}}
	}
	create := op(0, APICreate, "a", "", 0, 2, 201, "a", "5")
	get5 := op(1, APIGet, "", "", 3, 4, 200, "a", "5")
	upd := op(0, APIUpdate, "b", "5", 5, 7, 200, "b", "8")
	get8 := op(1, APIGet, "", "", 8, 9, 200, "b", "8")
	cases := []struct {
		name string
		ops  []porcupine.Operation
		want [][]int // positions per segment
		seed []string
	}{
		{"quiet points cut", []porcupine.Operation{create, get5, upd, get8}, [][]int{{0}, {1}, {2}, {3}}, []string{"", `"a" @5`, `"a" @5`, `"b" @8`}},
		{"overlapping calls do not", []porcupine.Operation{create, op(1, APIGet, "", "", 1, 3, 200, "a", "5"), op(0, APIGet, "", "", 3, 4, 200, "a", "5")},
			[][]int{{0, 1, 2}}, []string{""}},
		{"a live unknown write stops cuts", []porcupine.Operation{create, op(2, APIUpdate, "x", "5", 3, 0, 0, "", ""), get5, op(1, APIGet, "", "", 6, 7, 200, "a", "5")},
			[][]int{{0}, {1, 2, 3}}, []string{"", `"a" @5`}},
		{"a dead one does not", []porcupine.Operation{create, get5, op(2, APIUpdate, "x", "4", 5, 0, 0, "", ""), op(1, APIGet, "", "", 6, 7, 200, "a", "5")},
			[][]int{{0}, {1}, {2}, {3}}, []string{"", `"a" @5`, `"a" @5`, `"a" @5`}},
		{"an unknown write without precondition stops them for good", []porcupine.Operation{create, op(2, APIUpdate, "x", "", 3, 0, 0, "", ""), get5, upd, get8},
			[][]int{{0}, {1, 2, 3, 4}}, []string{"", `"a" @5`}},
		{"a delete anywhere: no cut", []porcupine.Operation{create, get5, op(1, APIDelete, "", "", 10, 11, 200, "", "")},
			[][]int{{0, 1, 2}}, []string{""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			segs := apiSegments(c.ops)
			var got [][]int
			var seeds []string
			for _, g := range segs {
				got = append(got, g.idx)
				if g.seed == nil {
					seeds = append(seeds, "")
					continue
				}
				_, s := APIModel.Step(apiState{}, g.seed.Input, g.seed.Output)
				seeds = append(seeds, APIModel.DescribeState(s))
				require.Less(t, g.seed.Return, c.ops[g.idx[0]].Call, "the seed precedes the segment")
			}
			require.Equal(t, c.want, got)
			require.Equal(t, c.seed, seeds)
		})
	}
}
