package checks

import (
	"hash/fnv"
	"strconv"

	"github.com/anishathalye/porcupine"
)

// The API verbs APIModel knows (apitrace.Call's Verb).
const (
	APIGet    = "get"
	APICreate = "create"
	APIUpdate = "update"
	APIDelete = "delete"
)

// apiSeed is the verb of the operation that starts a segment of a cut
// history in a known state (apiSegments); no client sends it.
const apiSeed = "seed"

// APIInput is the input of one operation in an APIModel history: the call
// as the client made it (apitrace.Call).
type APIInput struct {
	// Verb is get, create, update or delete.
	Verb string
	// Resource and Key name the object; the model partitions by both.
	Resource string
	Key      string
	// Value is the workload value create and update write.
	Value string
	// Precondition is the resourceVersion an update or delete requires
	// ("" for none).
	Precondition string
}

// APIOutput is the output of one operation in an APIModel history: the
// answer the client received (apitrace.Return).
type APIOutput struct {
	// Code is the HTTP status: 2xx, or 404 and 409 (the failures that say
	// something about the object). Other codes never reach the model (see
	// APILinearizability).
	Code int
	// Found, Value and RV describe the object in a 2xx answer.
	Found bool
	Value string
	RV    string
	// Unknown marks a write whose outcome the client never learned (no
	// answer, or a 5xx other than 503): any answer is accepted, and the
	// history gives it a return time of +infinity, so it may take effect at
	// any point after its call, or never.
	Unknown bool
}

// apiState is the state of one API object: absent, or present with a
// workload value and a resourceVersion. rvUnknown marks a present object
// last written by a write of unknown outcome: its value is known (the
// write's), its resourceVersion is not, until an answer that carries one
// re-establishes it; it is at least floor, the resourceVersion the object
// had before (etcd's revisions only grow). It is a comparable value, so ==
// works.
type apiState struct {
	present   bool
	value     string
	rv        string
	rvUnknown bool
	floor     int64
}

// rvNumber parses a resourceVersion; ok is false for one that is not an
// etcd revision.
func rvNumber(rv string) (n int64, ok bool) {
	n, err := strconv.ParseInt(rv, 10, 64)
	return n, err == nil
}

// rvAtLeast reports whether rv can be the unknown resourceVersion of s:
// at least its floor (any rv that is not a number can).
func (s apiState) rvAtLeast(rv string) bool {
	n, ok := rvNumber(rv)
	return !ok || n >= s.floor
}

// unknownAfter is the state a write of unknown outcome leaves when it
// writes value over s: the value, with a resourceVersion no lower than
// s's.
func (s apiState) unknownAfter(value string) apiState {
	floor := s.floor
	if !s.rvUnknown {
		floor, _ = rvNumber(s.rv)
	}
	return apiState{present: true, value: value, rvUnknown: true, floor: floor}
}

// rvMatches reports whether a precondition p can hold in s: no
// precondition, an unknown resourceVersion that may be p (not below its
// floor), or equality.
func (s apiState) rvMatches(p string) bool {
	return p == "" || (s.rvUnknown && s.rvAtLeast(p)) || s.rv == p
}

// rvMayDiffer reports whether a precondition p can fail in s.
func (s apiState) rvMayDiffer(p string) bool { return p != "" && (s.rvUnknown || s.rv != p) }

// rvAdvances reports whether rv may follow s's resourceVersion after a
// write of value: a higher revision, or the same one when nothing changed
// (the API server answers an update that changes nothing without writing).
func (s apiState) rvAdvances(rv, value string) bool {
	if s.rvUnknown {
		return s.rvAtLeast(rv)
	}
	if rv == "" || s.rv == "" {
		return true
	}
	if rv == s.rv {
		return value == s.value
	}
	a, errA := strconv.ParseInt(rv, 10, 64)
	b, errB := strconv.ParseInt(s.rv, 10, 64)
	return errA != nil || errB != nil || a > b
}

func ok2xx(code int) bool { return code >= 200 && code < 300 }

// APIModel is a porcupine model of one Kubernetes API object under quorum
// get, create, update (optionally with a resourceVersion precondition) and
// delete, served by API servers on etcd: each such call is linearizable
// (the API server reads and writes etcd with linearizable Range and Txn
// calls, and an update's precondition is an etcd compare on mod_revision).
// Inputs are APIInput, outputs APIOutput. Partition and PartitionEvent
// split a history by resource and key, and Init and Step describe one
// object.
//
// Purity contract: Step never mutates its arguments and has no side
// effects; the state is an immutable comparable value that is returned,
// never modified in place. Step's answer depends only on its arguments, so
// porcupine may replay and cache states freely.
//
// Semantics, for an object in state S (absent, or present with value v and
// resourceVersion rv, which may be unknown):
//   - get 2xx: legal when S is present with the answer's value and (if
//     known) rv, or (if unknown) an rv no lower than the last one known;
//     the answer's rv becomes known. get 404: legal when absent.
//   - create 2xx: legal when absent; S becomes present with the call's value
//     and the answer's rv. create 409 (AlreadyExists): legal when present.
//   - update 2xx: legal when present and the precondition (if any) equals rv
//     (or rv is unknown), and the answer's rv is newer (or the same, for an
//     update that changed nothing); S takes the call's value and the
//     answer's rv. update 409 (Conflict): legal when present with a
//     precondition that differs from rv (or rv is unknown). update 404:
//     legal when absent.
//   - delete 2xx: legal when present (and the precondition may hold); S
//     becomes absent. delete 409: legal when present with a precondition
//     that may differ. delete 404: legal when absent. Deletion is modelled
//     as immediate: the workload must delete without a grace period (any
//     resource but pods, or a zero grace period).
//   - an Unknown write is legal in any state and takes the effect it would
//     have if it applied now: create on an absent object, update or delete
//     on a present one whose rv may match the precondition. A write it
//     makes leaves rv unknown, but no lower than the rv before it, since
//     etcd's revisions only grow: a precondition, a get or an update 2xx
//     must name an rv at least that high. (Not applying is covered by
//     porcupine ordering the write last, which its +infinity return
//     allows.)
//   - seed, which no client sends, starts a segment of a cut history (see
//     apiSegments) in the state the operations before the cut left: legal
//     only first, on the initial state.
var APIModel = porcupine.Model{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		return partitionOps(h, func(in any) string { return apiPartitionKey(in.(APIInput)) })
	},
	PartitionEvent: func(h []porcupine.Event) [][]porcupine.Event {
		return partitionEvents(h, func(in any) string { return apiPartitionKey(in.(APIInput)) })
	},
	Init: func() any { return apiState{} },
	Step: func(state, input, output any) (bool, any) {
		return apiStep(state.(apiState), input.(APIInput), output.(APIOutput))
	},
	Hash: func(state any) uint64 {
		s := state.(apiState)
		h := fnv.New64a()
		if s.present {
			h.Write([]byte{1})
			h.Write([]byte(s.value))
			h.Write([]byte{0})
			h.Write([]byte(s.rv))
			if s.rvUnknown {
				h.Write([]byte{2})
				h.Write(strconv.AppendInt(nil, s.floor, 10))
			}
		}
		return h.Sum64()
	},
	DescribeOperation: func(input, output any) string {
		return describeAPIOp(input.(APIInput), output.(APIOutput))
	},
	DescribeState: func(state any) string { return describeAPIState(state.(apiState)) },
}

// apiStep is APIModel's step on one object.
func apiStep(s apiState, in APIInput, out APIOutput) (bool, apiState) {
	switch in.Verb {
	case APIGet:
		switch {
		case out.Unknown:
			return true, s
		case ok2xx(out.Code):
			if !s.present || out.Value != s.value || (!s.rvUnknown && out.RV != s.rv) || (s.rvUnknown && !s.rvAtLeast(out.RV)) {
				return false, s
			}
			return true, apiState{present: true, value: s.value, rv: out.RV}
		case out.Code == 404:
			return !s.present, s
		}
	case APICreate:
		switch {
		case out.Unknown:
			if s.present {
				return true, s
			}
			return true, apiState{present: true, value: in.Value, rvUnknown: true}
		case ok2xx(out.Code):
			return !s.present, apiState{present: true, value: in.Value, rv: out.RV}
		case out.Code == 409:
			return s.present, s
		}
	case APIUpdate:
		switch {
		case out.Unknown:
			if !s.present || !s.rvMatches(in.Precondition) {
				return true, s
			}
			return true, s.unknownAfter(in.Value)
		case ok2xx(out.Code):
			legal := s.present && s.rvMatches(in.Precondition) && s.rvAdvances(out.RV, in.Value)
			return legal, apiState{present: true, value: in.Value, rv: out.RV}
		case out.Code == 409:
			return s.present && s.rvMayDiffer(in.Precondition), s
		case out.Code == 404:
			return !s.present, s
		}
	case APIDelete:
		switch {
		case out.Unknown:
			if !s.present || !s.rvMatches(in.Precondition) {
				return true, s
			}
			return true, apiState{}
		case ok2xx(out.Code):
			return s.present && s.rvMatches(in.Precondition), apiState{}
		case out.Code == 409:
			return s.present && s.rvMayDiffer(in.Precondition), s
		case out.Code == 404:
			return !s.present, s
		}
	case apiSeed:
		return s == apiState{}, apiState{present: true, value: out.Value, rv: out.RV}
	}
	return false, s
}

func describeAPIState(s apiState) string {
	if !s.present {
		return "<absent>"
	}
	rv := s.rv
	if s.rvUnknown {
		rv = "?"
		if s.floor > 0 {
			rv += ">=" + strconv.FormatInt(s.floor, 10)
		}
	}
	return strconv.Quote(s.value) + " @" + rv
}

// describeAPIOp renders an operation for porcupine's visualization, e.g.
// `update(pods/default/a, "v2" if @12) -> 200 @15`.
func describeAPIOp(in APIInput, out APIOutput) string {
	var b []byte
	b = append(b, in.Verb...)
	b = append(b, '(')
	b = append(b, in.Resource...)
	b = append(b, '/')
	b = append(b, in.Key...)
	if in.Verb == APICreate || in.Verb == APIUpdate {
		b = append(b, ", "...)
		b = strconv.AppendQuote(b, in.Value)
	}
	if in.Precondition != "" {
		b = append(b, " if @"...)
		b = append(b, in.Precondition...)
	}
	b = append(b, ')')
	if out.Unknown {
		return string(append(b, " -> ?"...))
	}
	b = append(b, " -> "...)
	b = strconv.AppendInt(b, int64(out.Code), 10)
	if ok2xx(out.Code) && out.Found {
		if in.Verb == APIGet || in.Verb == apiSeed {
			b = append(b, ' ')
			b = strconv.AppendQuote(b, out.Value)
		}
		b = append(b, " @"...)
		b = append(b, out.RV...)
	}
	return string(b)
}

// apiPartitionKey is the partition of an operation: resource and key.
func apiPartitionKey(in APIInput) string { return in.Resource + "/" + in.Key }
