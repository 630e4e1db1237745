package checks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// compacted is member etcd-1 applying a compaction to rev at s seconds.
func compacted(s int64, rev int64) step {
	return at(s*1000, &etcdtrace.Apply{Member: "etcd-1", Rev: rev + 1, Compact: rev})
}

// runEnd is an event at s seconds that is not a compaction: the run lasts
// that long.
func runEnd(s int64) step { return at(s*1000, &etcdtrace.Apply{Member: "etcd-1", Rev: 9999}) }

func TestCompactionProgress(t *testing.T) {
	const faultEnd = 60 // s; interval 20 s, so the bound is 70 s
	cases := []struct {
		name     string
		interval time.Duration
		steps    []step
		ok       bool
		want     string
	}{
		{"compactions every two intervals after the faults", 20 * time.Second,
			[]step{compacted(40, 100), compacted(100, 150), compacted(140, 200), compacted(180, 250), runEnd(195)},
			true, "3 compaction(s) after the faults (to revision 250; 100 before)"},
		{"the first compaction 70 s after the faults is in time", 20 * time.Second,
			[]step{compacted(130, 150), compacted(190, 200), runEnd(195)}, true, "2 compaction(s)"},
		{"no compaction after the faults", 20 * time.Second,
			[]step{compacted(40, 100), compacted(50, 120), runEnd(195)},
			false, "no compaction for 135.0 s after 60.000000s (more than 3 × the 20s compaction interval + 10s) until the end of the run"},
		{"compaction stops after a while", 20 * time.Second,
			[]step{compacted(80, 100), compacted(100, 150), runEnd(195)},
			false, "no compaction for 95.0 s after 100.000000s"},
		{"the first compaction after the faults is too late", 20 * time.Second,
			[]step{compacted(131, 150), compacted(150, 200), runEnd(195)},
			false, "no compaction for 71.0 s after 60.000000s (more than 3 × the 20s compaction interval + 10s) until the next compaction (to revision 150)"},
		{"a lagging member applying an old compaction is not progress", 20 * time.Second,
			[]step{compacted(80, 150), compacted(120, 100), compacted(150, 150), runEnd(195)},
			false, "no compaction for 115.0 s after 80.000000s"},
		{"a settle window shorter than the bound is not judged", 20 * time.Second,
			[]step{compacted(40, 100), runEnd(125)}, true, "not judged: the 65 s after the faults are shorter than 1m10s"},
		{"API servers that do not compact", 0, []step{runEnd(195)}, true, "the API servers do not compact"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := feed(NewCompactionProgress(tc.interval, sim.Time(faultEnd*time.Second)), tc.steps...)
			assert.Equal(t, tc.ok, r.OK, r.String())
			assert.Contains(t, r.String(), tc.want)
		})
	}
}
