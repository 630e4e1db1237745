package conformance

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kubesim/kubesim/ablation"
)

// Divergence is the first difference between the real and the simulated
// answers in one sequence.
type Divergence struct {
	Seed uint64
	// Index is the index of the diverging op; len(Ops) for the final watch
	// flush after the last op.
	Index int
	Ops   []Op
	Real  Result
	Sim   Result
	// Watch is the index of the op that opened the diverging watch, -1 when
	// the divergence is in an op's answer; Note says what differs.
	Watch int
	Note  string
}

// String is the report: seed, op, both answers and the whole sequence.
func (d *Divergence) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "divergence in seed %d at op %d: %s\n", d.Seed, d.Index, d.Ops[d.Index].GoString())
	if d.Watch >= 0 {
		fmt.Fprintf(&b, "in the stream of the watch opened by op %d: %s\n", d.Watch, d.Ops[d.Watch].GoString())
		fmt.Fprintf(&b, "%s\n", d.Note)
		fmt.Fprintf(&b, "real etcd:\n%s\n", indent(streamString(d.Real.Watch)))
		fmt.Fprintf(&b, "simulated:\n%s\n", indent(streamString(d.Sim.Watch)))
	} else {
		fmt.Fprintf(&b, "real etcd:\n%s\n", indent(d.Real.String()))
		fmt.Fprintf(&b, "simulated:\n%s\n", indent(d.Sim.String()))
	}
	fmt.Fprintf(&b, "sequence (replay with -seed %d, or paste into regressions):\n%s", d.Seed, FormatSeq(d.Ops))
	return b.String()
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// runs numbers the sequences of this process, so that each gets a key prefix
// of its own in the shared real etcd even when a seed is run twice.
var runs atomic.Int64

// seqLen draws the number of ops of a generated sequence.
func seqLen(g *gen) int { return 20 + g.r.IntN(21) }

// RunSequence runs one sequence against the oracle and a fresh simulated
// member and returns the first divergence, or nil. With ops nil the sequence
// is generated from seed (the generator reads the simulator's revisions to
// aim its revisions); otherwise ops are run as given. Sequences must not run
// concurrently on one oracle.
func RunSequence(o *Oracle, seed uint64, ops []Op) (*Divergence, error) {
	return runSequence(o, seed, ops, ablation.Set{}, genKV)
}

// genMode selects the generator of a sequence.
type genMode uint8

const (
	genKV       genMode = iota // key-value ops and watches
	genMembers                 // a member call one op in four
	genSnapshot                // key-value ops, a snapshot, more ops, a restore, then reads and writes
)

// RunFreshSequence runs a sequence against a fresh oracle of its own and a
// fresh simulated member: for member calls, since membership changes
// outlive a sequence (and an added voter that never starts costs the
// cluster its quorum), and for snapshots, which hold the whole store. With
// ops nil the sequence is generated from seed by the generator of mode.
func RunFreshSequence(seed uint64, ops []Op, mode genMode) (*Divergence, error) {
	o, err := StartOracle()
	if err != nil {
		return nil, err
	}
	defer o.Close()
	return runSequence(o, seed, ops, ablation.Set{}, mode)
}

// runSequence is RunSequence with the simulated member's ablations, so that
// a test can show that the comparison notices a broken simulator.
func runSequence(o *Oracle, seed uint64, ops []Op, abl ablation.Set, mode genMode) (*Divergence, error) {
	prefix := fmt.Sprintf("r%d-s%d/", runs.Add(1), seed)
	ss, err := newSimSide(seed, prefix, abl)
	if err != nil {
		return nil, err
	}
	rs, err := newRealSide(o, prefix)
	if err != nil {
		return nil, err
	}
	defer rs.close()

	g := newGen(seed)
	n := len(ops)
	generate := ops == nil
	if generate {
		n = seqLen(g)
	}
	var done []Op
	revOp := map[int64]int{}  // simulator revision -> op that wrote it
	catchUp := map[int]bool{} // watch op index -> started at or below the current revision
	for i := 0; i < n; i++ {
		var op Op
		switch {
		case generate && mode == genMembers:
			op = g.nextMember(ss.cur, ss.compact, len(ss.mem.ids))
		case generate && mode == genSnapshot:
			op = g.nextSnapshot(i, n, ss.cur, ss.compact)
		case generate:
			op = g.next(ss.cur, ss.compact)
		default:
			op = ops[i]
		}
		done = append(done, op)
		if op.Kind == KWatch {
			catchUp[i] = op.Rev != 0 && op.Rev <= ss.cur
		}
		before := ss.cur
		simRes, err := ss.run(i, op)
		if err != nil {
			return nil, fmt.Errorf("seed %d op %d (%s): simulator: %w", seed, i, op.GoString(), err)
		}
		if ss.cur > before {
			revOp[ss.cur] = i
		}
		realRes, err := rs.run(i, op)
		if err != nil {
			return nil, fmt.Errorf("seed %d op %d (%s): real etcd: %w", seed, i, op.GoString(), err)
		}
		if realRes.String() != simRes.String() {
			return &Divergence{Seed: seed, Index: i, Ops: done, Real: realRes, Sim: simRes, Watch: -1}, nil
		}
	}
	// Then the watch streams: the simulator gets another second of virtual
	// time, real etcd is asked for a progress notification at its current
	// revision on every watch.
	ss.w.RunFor(time.Second)
	if err := rs.syncWatches(); err != nil {
		return nil, fmt.Errorf("seed %d: final watch sync: %w", seed, err)
	}
	realStreams := rs.streams()
	for _, idx := range ss.watches {
		sim, real := ss.streams[idx], realStreams[idx]
		if note := compareStreams(sim, real, catchUp[idx]); note != "" {
			d := &Divergence{Seed: seed, Index: idx, Ops: done, Real: Result{Watch: real}, Sim: Result{Watch: sim}, Watch: idx, Note: note}
			// Blame the op that wrote the first revision that differs.
			if at, ok := firstDiff(sim, real); ok {
				if i, ok := revOp[at]; ok && i > idx {
					d.Index = i
				}
			}
			return d, nil
		}
	}
	return nil, nil
}

// firstDiff returns the revision of the first event that differs between two
// streams.
func firstDiff(a, b []WatchResp) (int64, bool) {
	ea, eb := events(a), events(b)
	for i := 0; i < min(len(ea), len(eb)); i++ {
		if ea[i].String() != eb[i].String() {
			return min(ea[i].Mod, eb[i].Mod), true
		}
	}
	switch {
	case len(ea) > len(eb):
		return ea[len(eb)].Mod, true
	case len(eb) > len(ea):
		return eb[len(ea)].Mod, true
	}
	return 0, false
}

func events(rs []WatchResp) []KV {
	var out []KV
	for _, r := range rs {
		for _, e := range r.Events {
			kv := e.KV
			kv.Value = e.Type + ":" + kv.Value
			if e.PrevKV != nil {
				kv.Value += " prev" + e.PrevKV.String()
			}
			out = append(out, kv)
		}
	}
	return out
}
