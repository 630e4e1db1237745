package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/spoketrace"
)

func TestSteadyRuntime(t *testing.T) {
	cases := []struct {
		name string
		evs  []sev
		ok   bool
		want string
	}{
		{"changes only outside the window", []sev{start(1000, "node-1", "a", "rs"), start(2000, "node-2", "b", "rs"),
			stop(60000, "node-1", "a", spoketrace.StopDeleted, true)}, true, "2 container(s) ran on"},
		{"a container stopped in the window", []sev{start(1000, "node-1", "a", "rs"),
			stop(20000, "node-1", "a", spoketrace.StopDeleted, true)}, false, "stopped on node-1 (Deleted) while the control plane was down"},
		{"a container started in the window", []sev{start(15000, "node-1", "a", "rs")}, false, "started on node-1 while the control plane was down"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := feedSpoke(NewSteadyRuntime(secs(10), secs(50)), tc.evs...)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.String(), tc.want)
		})
	}
}
