package checks

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// ErrNoVisualization is returned by WriteVisualization when the check has
// not found a violation, so there is nothing to show.
var ErrNoVisualization = errors.New("linearizability: no failure to visualize")

// Visualizer is a check that can draw the violation it found as
// porcupine's HTML visualization (both linearizability checks can), so that
// a failing run's artifacts include it.
type Visualizer interface {
	Check
	// WriteVisualization writes the visualization of the failing keys'
	// histories, or returns ErrNoVisualization when the check passed.
	WriteVisualization(w io.Writer) error
}

// callSource says where the operations of a keyedHistory came from.
type callSource interface {
	// record is recorded call i, and the name of its client.
	record(i int) (*callRecord, string)
}

// linRunner is what the two linearizability checks (etcd KV and API
// objects) share once their histories are split by key: porcupine run on
// each key under the per-key timeout, a verdict whose failures always carry
// an offense (an illegal key explained by the longest linearizable prefix
// porcupine found), and the failing keys' linearizations kept for the HTML
// visualization.
type linRunner struct {
	check         string // the check's name, which starts each offense
	noun          string // what a partition key names: "key", "object"
	model         porcupine.Model
	timeout       time.Duration // per key; 0 means no bound
	maxVisualized int
	// checkKey runs porcupine on one key's history; tests replace it.
	checkKey func(porcupine.Model, []porcupine.Operation, time.Duration) porcupine.CheckResult
	// split, when set, cuts a key's history into segments checked one at
	// a time (apiSegments); the timeout bounds each segment.
	split func([]porcupine.Operation) []opSegment
	info  *porcupine.LinearizationInfo
}

// newLinRunner returns the runner of check, whose keys are nouns, with
// model; maxVisualized caps the failing keys explained and visualized
// (0 means 10).
func newLinRunner(check, noun string, model porcupine.Model, timeout time.Duration, maxVisualized int) *linRunner {
	if maxVisualized <= 0 {
		maxVisualized = 10
	}
	return &linRunner{check: check, noun: noun, model: model, timeout: timeout, maxVisualized: maxVisualized,
		checkKey: porcupine.CheckOperationsTimeout}
}

// judge gives the verdict on h, whose operations came from calls. summary
// describes the history (for a pass and for a timeout); orphans counts
// returns without a call.
func (r *linRunner) judge(h keyedHistory, calls callSource, summary string, orphans int) Result {
	var illegal, unknown []int
	// A key that fails is judged, explained and visualized by its first
	// failing segment, in place of its whole history.
	failed := keyedHistory{keys: h.keys, parts: slices.Clone(h.parts), src: slices.Clone(h.src)}
	segments := 0
	for i, part := range h.parts {
		segs := []opSegment{{}} // the whole history
		if r.split != nil {
			segs = r.split(part)
		}
		segments += len(segs)
		for _, g := range segs {
			ops, src := part, h.src[i]
			if r.split != nil {
				ops, src = g.operations(part, h.src[i])
			}
			res := r.checkKey(r.model, ops, r.timeout)
			if res == porcupine.Ok {
				continue
			}
			failed.parts[i], failed.src[i] = ops, src
			if res == porcupine.Illegal {
				illegal = append(illegal, i)
			} else {
				unknown = append(unknown, i)
			}
			break
		}
	}
	h = failed
	if r.split != nil {
		summary += fmt.Sprintf("; checked in %d segments", segments)
	}
	switch {
	case len(illegal) > 0:
		offs := r.explain(h, calls, illegal)
		return Result{Name: r.check, OK: false, Offenses: offs,
			Detail: fmt.Sprintf("not linearizable on %d of %d %ss (%s); first: %s", len(illegal), len(h.keys), r.noun,
				keyList(h.keys, illegal), offs[0].What)}
	case len(unknown) > 0:
		return Result{Name: r.check, OK: false, Offenses: r.timedOut(h, calls, unknown),
			Detail: fmt.Sprintf("%s unknown: porcupine timed out after %v on %d %ss (%s); %s",
				r.check, r.timeout, len(unknown), r.noun, keyList(h.keys, unknown), summary)}
	}
	if orphans > 0 {
		summary += fmt.Sprintf("; ignored %d returns without a call", orphans)
	}
	return Result{Name: r.check, OK: true, Detail: "linearizable: " + summary}
}

// timedOut names each key porcupine gave up on (up to MaxOffenses), at its
// first call: there the history it could not judge begins.
func (r *linRunner) timedOut(h keyedHistory, calls callSource, unknown []int) []Offense {
	var offs []Offense
	for _, p := range unknown {
		if len(offs) == MaxOffenses {
			break
		}
		rec, _ := calls.record(h.src[p][0]) // a seed is last
		offs = append(offs, Offense{At: rec.call, Seq: rec.callSeq, What: fmt.Sprintf(
			"%s: %s %q: porcupine timed out after %v on its %d ops", r.check, r.noun, h.keys[p], r.timeout, len(h.parts[p]))})
	}
	return offs
}

// explain re-runs porcupine verbosely on the illegal keys (up to
// maxVisualized), keeps the result for writeVisualization, and returns one
// offense per key, and at least one.
func (r *linRunner) explain(h keyedHistory, calls callSource, illegal []int) []Offense {
	if len(illegal) > r.maxVisualized {
		illegal = illegal[:r.maxVisualized]
	}
	var combined []porcupine.Operation
	for _, p := range illegal {
		for j, op := range h.parts[p] {
			if h.src[p][j] < 0 {
				op.Metadata = "the state the operations before this segment left"
			} else {
				rec, client := calls.record(h.src[p][j])
				op.Metadata = fmt.Sprintf("%s op %d (event %d)", client, rec.op, rec.callSeq)
			}
			combined = append(combined, op)
		}
	}
	_, info := porcupine.CheckOperationsVerbose(r.model, combined, r.timeout)
	r.info = &info
	partials := info.PartialLinearizations()
	var offs []Offense
	for n, p := range illegal {
		if n >= len(partials) || len(offs) >= MaxOffenses {
			break
		}
		offs = append(offs, r.offense(h.keys[p], h.parts[p], h.src[p], partials[n], calls))
	}
	if len(offs) == 0 {
		offs = append(offs, r.noLinearization(h.keys[illegal[0]]))
	}
	return offs
}

// offense names, for one illegal key, the longest linearizable prefix, the
// state it leaves, and the first-returning operation that no order could
// fit after it, at that operation's return (or call, if it never returned).
func (r *linRunner) offense(key string, part []porcupine.Operation, src []int, partials [][]int, calls callSource) Offense {
	prefix, state, culprit := explainFailure(r.model, part, partials)
	if culprit < 0 || src[culprit] < 0 {
		return r.noLinearization(key)
	}
	rec, client := calls.record(src[culprit])
	at, seq, ret := rec.call, rec.callSeq, "never"
	if rec.returned {
		at, seq, ret = rec.ret, rec.retSeq, rec.ret.String()
	}
	return Offense{At: at, Seq: seq, What: fmt.Sprintf(
		"%s: %s %q: after %d linearized ops (state %s), no order fits %s by %s op %d [called %v, returned %s]",
		r.check, r.noun, key, len(prefix), r.model.DescribeState(state),
		r.model.DescribeOperation(part[culprit].Input, part[culprit].Output), client, rec.op, rec.call, ret)}
}

// noLinearization is the offense of an illegal key porcupine gave no
// partial linearization to explain.
func (r *linRunner) noLinearization(key string) Offense {
	return Offense{What: fmt.Sprintf("%s: %s %q has no linearization", r.check, r.noun, key)}
}

// writeVisualization writes porcupine's HTML visualization of the keys
// explain explained, or returns ErrNoVisualization.
func (r *linRunner) writeVisualization(w io.Writer) error {
	if r.info == nil {
		return ErrNoVisualization
	}
	return porcupine.Visualize(r.model, *r.info, w)
}

// keyList quotes the chosen keys, at most five.
func keyList(keys []string, idx []int) string {
	var b strings.Builder
	for n, i := range idx {
		if n == 5 {
			fmt.Fprintf(&b, ", ... %d more", len(idx)-n)
			break
		}
		if n > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", keys[i])
	}
	return b.String()
}
