package catalogue_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// TestCatalogue runs every named scenario over its seeds (3, so that each
// of 3, 4 and 5 members runs once for the etcd and API scenarios; with
// -deep the scenario's catalogue seeds, 100 or 50 for the full stack),
// seed s with member count Members[s mod n], and asserts that every check
// passes;
// -catalogue-grid runs every seed with every member count. A failure
// prints the command that replays it. Seeds 1 and 2 have their trace
// hashes pinned (pinnedSeeds), and seed 1 runs twice.
func TestCatalogue(t *testing.T) {
	t.Parallel() // its subtests run beside the other long tests'
	pins := newTracePins()
	enough, subtests := true, 0
	t.Cleanup(func() {
		// Every pinned run ran (no -run filter left a subtest out, none
		// failed first) only when every subtest started and passed.
		pins.verify(t, enough && pins.started == subtests && !t.Failed())
	})
	for _, spec := range scenarios.Catalogue() {
		seeds := catalogueSeeds(spec)
		enough = enough && seeds >= pinnedSeeds
		for _, members := range spec.Members {
			subtests++
			t.Run(fmt.Sprintf("%s/members=%d", spec.Name, members), func(t *testing.T) {
				t.Parallel()
				pins.start()
				for seed := 1; seed <= seeds; seed++ {
					if !*gridFlag && spec.Members[seed%len(spec.Members)] != members {
						continue
					}
					opts := scenarios.Options{Scenario: spec.Name, Members: members, Seed: uint64(seed)}
					res, err := scenarios.Run(opts)
					require.NoError(t, err)
					if !res.OK {
						for _, c := range res.Failed() {
							t.Errorf("%s", c.String())
						}
						t.Fatalf("replay with: %s", scenarios.ReplayCommand(res))
					}
					if pinned(spec, members, seed) {
						pins.add(res)
					}
					if seed == 1 {
						again, err := scenarios.Run(opts)
						require.NoError(t, err)
						require.Equal(t, res.TraceHash, again.TraceHash, "%s seed 1 run twice in one process", spec.Name)
					}
				}
			})
		}
	}
}

// TestMajorityDownStopsWrites: while a quorum is down, no write succeeds,
// though writes are attempted, and writes succeed again afterwards.
func TestMajorityDownStopsWrites(t *testing.T) {
	t.Parallel()
	for _, members := range []int{3, 4, 5} {
		res, err := scenarios.Run(scenarios.Options{Scenario: "etcd-majority-down", Members: members, Seed: 7})
		require.NoError(t, err)
		require.True(t, res.OK, "%v", res.Failed())
		var check string
		for _, c := range res.Checks {
			if c.Name == "no-writes-without-quorum" {
				check = c.Detail
			}
		}
		require.Regexp(t, `^0 of [1-9][0-9]* writes invoked in 1 window\(s\) without a quorum succeeded before a quorum could log them$`, check)
		require.Greater(t, res.Metrics["writes_ok"], 100.0, "writes work outside the window")
	}
}

func mustParse(source, text string) sim.Schedule {
	s, err := sim.ParseSchedule(source, text)
	if err != nil {
		panic(err)
	}
	return s
}

// TestBadOptions: a run that cannot be what was asked is refused before it
// starts, with the input at fault and what to do.
func TestBadOptions(t *testing.T) {
	cases := []struct {
		opts scenarios.Options
		want string
	}{
		{scenarios.Options{Scenario: "nope", Members: 3}, `unknown scenario "nope"`},
		{scenarios.Options{Scenario: "etcd-chaos", Members: 0}, "--members must be between 1 and 7, got 0"},
		{scenarios.Options{Scenario: "etcd-chaos", Members: 8}, "--members must be between 1 and 7, got 8"},
		{scenarios.Options{Scenario: "etcd-chaos", Members: 3, Ablations: []string{"bogus"}}, `unknown ablation "bogus"`},
		{scenarios.Options{Scenario: "etcd-chaos", Members: 3, Duration: time.Minute, Schedule: mustParse("sched.txt", "10s crash etcd-1\n60s crash etcd-2\n")},
			"sched.txt:2: crash at 1m0s: the run ends at 1m0s, so this fault would never happen: schedule it earlier, or run longer (--duration more than 1m0s)"},
		{scenarios.Options{Scenario: "etcd-chaos", Members: 3, Schedule: mustParse("sched.txt", "10s crash etcd-1\n20s crash etcd-9\n")},
			`sched.txt:2: crash at 20s: unknown fault target "etcd-9": name a host (such as etcd-1), "*" for every host, or a group the scenario defines`},
		{scenarios.Options{Scenario: "etcd-chaos", Members: 3, Schedule: mustParse("sched.txt", "10s partition etcd-1,etcd-2|etcd\n")},
			`sched.txt:1: partition at 10s: partition puts etcd-1 on both sides: a host cannot be cut off from itself; name it on one side only`},
		{scenarios.Options{Scenario: "stack-chaos", Members: 3, Schedule: mustParse("sched.txt", "40s restart-process etcd-1 process=kubelet\n")},
			`sched.txt:1: restart-process at 40s: host etcd-1 runs no process "kubelet" that restarts alone`},
	}
	for _, c := range cases {
		_, err := scenarios.Run(c.opts)
		require.ErrorContains(t, err, c.want)
	}
}

// TestAPIScenariosRejectKVClients: the KV workload knobs of etcd scenarios
// are refused for an API scenario, whose only etcd client is the API server.
func TestAPIScenariosRejectKVClients(t *testing.T) {
	_, err := scenarios.Run(scenarios.Options{Scenario: "api-chaos", Members: 3, Seed: 1, Clients: 2})
	require.ErrorContains(t, err, "clients, think and the compaction interval shape the KV workload of etcd scenarios; api-chaos has none")
}
