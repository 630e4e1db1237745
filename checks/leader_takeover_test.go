package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// lead is replica "cm-<host>" of kube-controller-manager on host h saying
// it leads (or stopped) at ms.
func lead(ms int64, h sim.HostID, leading bool) sev {
	return sev{ms, h, sim.KindNode, "", &spoketrace.Leading{Component: "kube-controller-manager", Identity: "cm-" + string(rune('0'+h)), Leading: leading}}
}

func hostFault(ms int64, h sim.HostID, name string) sev { return sev{ms, h, sim.KindFault, name, nil} }

func TestLeaderTakeover(t *testing.T) {
	cases := []struct {
		name     string
		evs      []sev
		ok       bool
		want     string
		takeover float64
	}{
		{"partitioned leader steps down, the other takes over in time",
			[]sev{lead(1000, 1, true), hostFault(10000, 1, "isolate"), lead(20000, 1, false), lead(27000, 2, true)},
			true, "1 takeover(s), the slowest 17.0 s", 17},
		{"crashed leader, the other takes over in time",
			[]sev{lead(1000, 1, true), hostFault(10000, 1, "crash"), lead(28000, 2, true)},
			true, "1 takeover(s), the slowest 18.0 s", 18},
		{"a short fault ridden out: nothing lost",
			[]sev{lead(1000, 1, true), hostFault(10000, 1, "isolate"), hostFault(13000, 1, "isolate-healed")},
			true, "0 takeover(s)", -1},
		{"takeover too slow",
			[]sev{lead(1000, 1, true), hostFault(10000, 1, "isolate"), lead(20000, 1, false), lead(40000, 2, true)},
			false, "took over kube-controller-manager 30.0 s after its leader cm-1", 30},
		{"no takeover at all",
			[]sev{lead(1000, 1, true), hostFault(10000, 1, "crash")},
			false, "no replica of kube-controller-manager took over", -1},
		{"two leaders at once",
			[]sev{lead(1000, 1, true), lead(5000, 2, true)},
			false, "cm-2 started leading kube-controller-manager while cm-1 still led", -1},
		{"a fault on another host is not the leader's",
			[]sev{lead(1000, 1, true), hostFault(10000, 2, "crash")},
			true, "0 takeover(s)", -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewLeaderTakeover(LeaderTakeoverOptions{Component: "kube-controller-manager"})
			r := feedSpoke(c, tc.evs...)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.String(), tc.want)
			require.InDelta(t, tc.takeover, c.Measures()["takeover_s"], 1e-9)
		})
	}
}
