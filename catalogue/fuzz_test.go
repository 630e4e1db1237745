package catalogue_test

import (
	"flag"
	"fmt"
	"slices"
	"testing"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// fuzzAblateFlag turns an ablation on in the fuzzed worlds, and drops the
// seed corpus, so that a measurement can time how soon the fuzzer, from
// nothing, finds a world whose checks catch it (docs/replay.md). The
// targets themselves run without ablations.
var fuzzAblateFlag = flag.String("fuzz-ablate", "", "FuzzEtcd, FuzzAPI, FuzzStack: turn on this ablation and add no seeds (measurement only)")

// FuzzEtcd explores etcd worlds by coverage: its input decodes
// (fuzzLayer.decode) into etcd-chaos's cluster of 3 to 5 members, a
// seed, the KV workload's knobs and up to 8 faults, for 60 s; it fails
// when a check does. `go test -fuzz '^FuzzEtcd$' ./catalogue` explores
// (CI does, for a bounded time); what it finds is saved under
// testdata/fuzz/FuzzEtcd/ and replays first in every go test.
func FuzzEtcd(f *testing.F) {
	fuzzWorld(f, fuzzEtcd, fuzzEtcdSeeds())
}

// fuzzEtcdSeeds are FuzzEtcd's seeds: one fault of each kind it draws,
// on various members and workloads (BUGGIFY on from the ninth: bit 3 of
// Compaction), and a triggered one.
func fuzzEtcdSeeds() [][]byte {
	var seeds [][]byte
	for i, k := range fuzzEtcd.kinds {
		seeds = append(seeds, fuzzEncode(fuzzHeader{Members: byte(i), Seed: uint32(i), Clients: byte(i), Think: 40, Compaction: byte(i)},
			fuzzKind(fuzzEtcd, k, fuzzRecord{At: 64, For: 64, Mask: 0b0101, Mode: 1, P1: 200, P2: 0x35, P3: 80})))
	}
	// A leader crashed as soon as it is elected, the second time too,
	// beside a flaky network to its clients.
	return append(seeds, fuzzEncode(fuzzHeader{Members: 1, Seed: 7, Clients: 2, Compaction: 2},
		fuzzKind(fuzzEtcd, sim.FaultCrash, fuzzRecord{At: 10, For: 20, Mode: 0, Trigger: 3 | 1<<6}),
		fuzzKind(fuzzEtcd, sim.FaultFlaky, fuzzRecord{At: 50, For: 100, Mode: 0, P1: 60, P2: 0x22})))
}

// FuzzAPI is FuzzEtcd for the API layer: api-chaos's cluster, API
// servers and workloads, for 230 s with faults in the first 60 s, etcd's
// and the API layer's own.
func FuzzAPI(f *testing.F) {
	fuzzWorld(f, fuzzAPI, [][]byte{
		// An API server cut off from etcd, another crashed, the informers
		// cut off from the API servers, the etcd leader crashed.
		fuzzEncode(fuzzHeader{Seed: 1},
			fuzzKind(fuzzAPI, sim.FaultPartition, fuzzRecord{At: 20, For: 80, Mode: 1, P2: 0}),
			fuzzKind(fuzzAPI, sim.FaultCrash, fuzzRecord{At: 90, For: 40, Mode: 1, P2: 1}),
			fuzzKind(fuzzAPI, sim.FaultPartition, fuzzRecord{At: 140, For: 60, Mode: 2}),
			fuzzKind(fuzzAPI, sim.FaultCrash, fuzzRecord{At: 180, For: 30, Mode: 0})),
		// A pause of the leader as a watch cache starts over, flaky links
		// to the API clients, a slow disk, with BUGGIFY on.
		fuzzEncode(fuzzHeader{Members: 2, Seed: 2, Compaction: fuzzBuggify},
			fuzzKind(fuzzAPI, sim.FaultPause, fuzzRecord{At: 0, For: 30, Mode: 0, Trigger: 3 | 1<<2}),
			fuzzKind(fuzzAPI, sim.FaultFlaky, fuzzRecord{At: 60, For: 120, Mode: 0, P1: 128, P2: 0x23, P3: 100}),
			fuzzKind(fuzzAPI, sim.FaultSlowDisk, fuzzRecord{At: 100, For: 60, Mask: 1, Mode: 1, P1: 50})),
	})
}

// FuzzStack is FuzzEtcd for the full stack: stack-chaos's control plane,
// nodes and operator for 300 s, faults from 30 s to 120 s, then a settle
// window after which the cluster must have converged.
func FuzzStack(f *testing.F) {
	fuzzWorld(f, fuzzStack, [][]byte{
		// A zombie controller manager, a kubelet restarted, nodes cut off
		// from the API servers, a clock drifting.
		fuzzEncode(fuzzHeader{Seed: 1},
			fuzzKind(fuzzStack, sim.FaultPause, fuzzRecord{At: 10, Mode: 0, P1: 100}),
			fuzzKind(fuzzStack, sim.FaultRestartProcess, fuzzRecord{At: 60, Mask: 0b11}),
			fuzzKind(fuzzStack, sim.FaultPartition, fuzzRecord{At: 120, For: 30, Mask: 0b1100000000}),
			fuzzKind(fuzzStack, sim.FaultClockDrift, fuzzRecord{At: 30, For: 200, Mask: 0b1000, P1: 255})),
		// The controller manager's leader crashed as a rollout starts, an
		// etcd member crashed, a flaky apiserver, with BUGGIFY on.
		fuzzEncode(fuzzHeader{Members: 1, Seed: 2, Compaction: fuzzBuggify},
			fuzzKind(fuzzStack, sim.FaultCrash, fuzzRecord{At: 0, For: 40, Mode: 8, Trigger: 3 | 2<<2}),
			fuzzKind(fuzzStack, sim.FaultCrash, fuzzRecord{At: 30, For: 50, Mask: 1, Mode: 1}),
			fuzzKind(fuzzStack, sim.FaultFlaky, fuzzRecord{At: 90, For: 90, Mask: 0b100000, P1: 200, P2: 0x33, P3: 50})),
	})
}

// fuzzKind is r with its Kind byte set to choose kind in l.
func fuzzKind(l fuzzLayer, kind sim.FaultKind, r fuzzRecord) fuzzRecord {
	i := slices.Index(l.kinds, kind)
	if i < 0 {
		panic(fmt.Sprintf("%s has no %s faults", l.scenario, kind))
	}
	r.Kind = byte(i)
	return r
}

// fuzzWorld adds the seeds (unless -fuzz-ablate is set) and fuzzes l's
// worlds: every input decodes to a world that runs, and every check must
// pass. A failure prints the failing checks, the commands that run the
// scenario, and the world's fault schedule and workload.
func fuzzWorld(f *testing.F, l fuzzLayer, seeds [][]byte) {
	if *fuzzAblateFlag == "" {
		for _, s := range seeds {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o := l.decode(data)
		if *fuzzAblateFlag != "" {
			o.Ablations = []string{*fuzzAblateFlag}
		}
		res, err := scenarios.Run(o)
		if err != nil {
			t.Fatalf("the input decodes to a world that does not run: %v\nschedule:\n%s", err, o.Schedule)
		}
		if !res.OK {
			t.Fatalf("%s\n%s", scenarios.FailureReport(res, o, scenarios.Artifacts{}), fuzzWorldText(o))
		}
	})
}

// fuzzWorldText is what a failure adds to the report: the world's
// schedule and workload, which the commands of the report leave out.
func fuzzWorldText(o scenarios.Options) string {
	s := fmt.Sprintf("the world's fault schedule (kubesim run --schedule FILE with the command above; a corpus entry's \"schedule\" field):\n%s", o.Schedule)
	if o.Clients > 0 {
		s += fmt.Sprintf("the world's KV workload, which no command-line flag sets: clients %d, think %v, compaction %v, pinned clients %v\n",
			o.Clients, o.Think, o.Compaction, o.PinClients)
	}
	return s + "the fuzz input itself replays with go test ./catalogue -run 'Fuzz.../NAME' once go test -fuzz saved it under catalogue/testdata/fuzz/\n"
}
