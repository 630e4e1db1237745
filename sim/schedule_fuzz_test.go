package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// FuzzParseSchedule: whatever the text, ParseSchedule returns a schedule
// or an error and never panics; a schedule it takes prints back to text
// that parses to the same schedule, so that a recorded schedule always
// replays. CI runs it for a bounded time (.ci/run).
func FuzzParseSchedule(f *testing.F) {
	for _, seed := range []string{
		"# kubesim fault schedule\n10s crash etcd-1 for 5s\n",
		"20s partition etcd-1,etcd-2|etcd-3 for 30s\n25s oneway etcd-1>etcd-3 for 2s\n",
		"40s restart-process node-3 process=kubelet\n50s clock-drift etcd-2 for 60s rate=1.05\n",
		"55s clock-jump node-1 by=-30s\n60s flaky * for 10s loss=0.2 dup=0.05 delay=5ms\n",
		"70s slow-disk etcd-3 for 20s fsync=200ms\n90s heal\n",
		"on raft.state role=leader edge within 500ms: crash etcd-leader for 5s\n",
		"10s on etcd.member etcd-1,etcd-2 change=add-learner err=x:y until 1m within 1s times 3: isolate etcd-leader for 3s\n",
		"0s on timer apiservers name=apiserver-cache-* : partition etcd-1|etcd-2 for 1s\n",
		"1s on raft.state until 1s: crash a\n", "1s on: crash a\n", "on raft.state role=x: \n",
		"10s crash etcd-1 for 0s\n", "1s flaky a loss=NaN\n", "\x00\xff", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := sim.ParseSchedule("fuzz.txt", text)
		if err != nil {
			return
		}
		again, err := sim.ParseSchedule("fuzz.txt", s.String())
		require.NoError(t, err, "printed as:\n%s", s.String())
		require.Equal(t, len(s), len(again))
		for i := range s {
			s[i].Pos, again[i].Pos = "", ""
		}
		require.Equal(t, s, again)
	})
}
