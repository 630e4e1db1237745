package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

// TestRateLimitedQueueOrder: the tainting queue hands out values by
// processAt, then in arrival order, and a value whose processing asks to
// be retried (ok false) goes back with processAt now + wait, behind the
// values already due. As RateLimitedTimedQueue in kubernetes/kubernetes
// pkg/controller/nodelifecycle/scheduler/rate_limited_queue.go (a heap of
// TimedValue by ProcessAt; Try re-adds a failed value with
// ProcessAt = now.Add(wait + 1)).
func TestRateLimitedQueueOrder(t *testing.T) {
	sec := func(s int) model.Time { return model.Time(time.Duration(s) * time.Second) }
	q := newRateLimitedQueue(0.1, 0)
	q.add("late", sec(5))
	q.add("early", sec(1))
	q.add("early-too", sec(1))
	var got []string
	failFirst := map[string]bool{"early": true}
	process := func(v string, done func(bool, time.Duration)) {
		got = append(got, v)
		if failFirst[v] {
			failFirst[v] = false
			done(false, 50*time.Millisecond)
			return
		}
		done(true, 0)
	}
	// One token every 10 s: one value a try. "early" fails at 10 s and
	// goes back due at 10.05 s, behind "late" (due at 5 s).
	for i := 1; i <= 4; i++ {
		q.try(func() model.Time { return sec(10 * i) }, process, func() {})
	}
	require.Equal(t, []string{"early", "early-too", "late", "early"}, got)
	require.Zero(t, q.len())
}
