package catalogue_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
)

// Flags that make TestChaos replay exactly one world:
//
//	go test ./catalogue -run 'TestChaos$' -seed 17 -members 5 -scenario etcd-chaos
var (
	seedFlag     = flag.Uint64("seed", 0, "TestChaos: replay this seed only (0: a fixed range of seeds)")
	membersFlag  = flag.Int("members", 0, "TestChaos: etcd members (0: 3 and 5)")
	scenarioFlag = flag.String("scenario", "etcd-chaos", "TestChaos: the scenario to run")
	durationFlag = flag.Duration("duration", 0, "TestChaos: virtual run length (0: the scenario's)")
	faultsFlag   = flag.String("faults", "", "TestChaos: draw faults from this profile instead of the scenario's")
	buggifyFlag  = flag.Bool("buggify", false, "TestChaos: switch BUGGIFY on (the replay of a run that had it)")
	ablateFlag   stringsFlag
)

func init() {
	flag.Var(&ablateFlag, "ablate", "TestChaos: turn on an ablation (repeatable)")
}

type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// artifactDir is where failing runs write their trace and visualization.
func artifactDir() string {
	if d := os.Getenv("KUBESIM_ARTIFACTS"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "kubesim-failures")
}

// checkRun runs one world and, if a check fails, writes its artifacts and
// fails the test with the failing checks, their first offending events, the
// commands that replay it and the files written.
func checkRun(t *testing.T, opts scenarios.Options) scenarios.Result {
	t.Helper()
	res, err := scenarios.Run(opts)
	require.NoError(t, err)
	if !res.OK {
		art, err := scenarios.WriteArtifacts(opts, artifactDir())
		if err != nil {
			t.Logf("writing artifacts: %v", err)
		}
		t.Fatal("\n" + scenarios.FailureReport(res, opts, art))
	}
	return res
}

// TestChaos runs a scenario (etcd-chaos unless -scenario says otherwise)
// over a fixed range of seeds (3; 20 with -deep), or replays the one world
// that -seed names.
func TestChaos(t *testing.T) {
	t.Parallel()
	members := []int{3, 5}
	if *membersFlag != 0 {
		members = []int{*membersFlag}
	}
	var seeds []uint64
	if *seedFlag != 0 {
		seeds = []uint64{*seedFlag}
	} else {
		n := uint64(3)
		if *deepFlag {
			n = 20
		}
		for s := uint64(1); s <= n; s++ {
			seeds = append(seeds, s)
		}
	}
	var profile *nemesis.Profile
	if *faultsFlag != "" {
		p, err := nemesis.ParseProfile(*faultsFlag)
		require.NoError(t, err)
		profile = &p
	}
	for _, m := range members {
		for _, seed := range seeds {
			res := checkRun(t, scenarios.Options{Scenario: *scenarioFlag, Members: m, Seed: seed,
				Duration: *durationFlag, Ablations: ablateFlag, Profile: profile, Buggify: *buggifyFlag})
			if *seedFlag != 0 {
				t.Logf("%s members=%d seed=%d: ok, trace hash %s, %d events", res.Scenario, m, seed, res.TraceHash, res.Events)
			}
		}
	}
}

// TestFailureReportAndArtifacts: a failing run's report names the failing
// check with its offending events, gives both replay commands, and the
// trace and porcupine's visualization are written where it says.
func TestFailureReportAndArtifacts(t *testing.T) {
	t.Parallel()
	opts := scenarios.Options{Scenario: "etcd-flaky-network", Members: 3, Seed: 1, Ablations: []string{"mvcc-ignore-compare"}}
	res, err := scenarios.Run(opts)
	require.NoError(t, err)
	require.False(t, res.OK)
	art, err := scenarios.WriteArtifacts(opts, t.TempDir())
	require.NoError(t, err)
	report := scenarios.FailureReport(res, opts, art)
	require.Contains(t, report, "linearizability        FAIL")
	require.Contains(t, report, "    at ")
	require.Contains(t, report, "go test ./catalogue -run 'TestChaos$' -scenario etcd-flaky-network -members 3 -seed 1 -ablate mvcc-ignore-compare")
	require.Contains(t, report, "kubesim run --scenario etcd-flaky-network --members 3 --seed 1 --ablate mvcc-ignore-compare")
	require.Len(t, art.Porcupine, 1, "the linearizability check's visualization")
	require.True(t, strings.HasSuffix(art.Porcupine[0], ".linearizability.porcupine.html"), art.Porcupine[0])
	for _, p := range art.Paths() {
		require.Contains(t, report, "wrote "+p)
		info, err := os.Stat(p)
		require.NoError(t, err)
		require.Positive(t, info.Size(), p)
	}
	html, err := os.ReadFile(art.Porcupine[0])
	require.NoError(t, err)
	require.Contains(t, string(html), "<html")
	first, err := os.ReadFile(art.Trace)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(first), `{"seq":0,`), "JSONL trace")
}

// TestAPILinearizabilityArtifact: a run the API linearizability check
// fails gets porcupine's visualization of the API history too, named after
// that check.
func TestAPILinearizabilityArtifact(t *testing.T) {
	t.Parallel()
	opts := scenarios.Options{Scenario: "api-conflict-storm", Members: 3, Seed: 1, Ablations: []string{"apiserver-last-write-wins"}}
	art, err := scenarios.WriteArtifacts(opts, t.TempDir())
	require.NoError(t, err)
	var api string
	for _, p := range art.Porcupine {
		if strings.HasSuffix(p, ".api-linearizability.porcupine.html") {
			api = p
		}
	}
	require.NotEmpty(t, api, "visualizations written: %v", art.Porcupine)
	html, err := os.ReadFile(api)
	require.NoError(t, err)
	require.Contains(t, string(html), "<html")
	require.Contains(t, string(html), "update(", "the API model's operations")
}
