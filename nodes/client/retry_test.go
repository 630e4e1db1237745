package client_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
	"github.com/stretchr/testify/require"
)

var conflict = client.NewStatusError(apiwire.Status{Code: 409, Reason: apiwire.ReasonConflict}, "s")

// retryTimes runs RetryOnConflict with fn failing with conflicts for the
// first fails attempts and returns the attempt times and the final error.
func retryTimes(t *testing.T, b client.Backoff, fails int) ([]sim.Time, error) {
	w := sim.NewWorld(9)
	h := w.MustAddHost(sim.HostSpec{Name: "h"})
	var times []sim.Time
	var final error
	finished := false
	w.After(0, "start", func() {
		client.RetryOnConflict(h, b, func(done func(error)) {
			times = append(times, w.Now())
			if len(times) <= fails {
				done(conflict)
				return
			}
			done(nil)
		}, func(err error) { final, finished = err, true })
	})
	w.RunFor(time.Minute)
	require.True(t, finished)
	return times, final
}

func TestRetryOnConflictSucceedsAfterConflicts(t *testing.T) {
	times, err := retryTimes(t, client.DefaultRetry, 3)
	require.NoError(t, err)
	require.Len(t, times, 4)
	for i := 1; i < len(times); i++ {
		d := times[i].Sub(times[i-1])
		require.GreaterOrEqual(t, d, 10*time.Millisecond)
		require.Less(t, d, 11*time.Millisecond, "DefaultRetry: 10 ms, factor 1, jitter 0.1")
	}
}

func TestRetryOnConflictGivesUpAfterFive(t *testing.T) {
	times, err := retryTimes(t, client.DefaultRetry, 100)
	require.Len(t, times, 5)
	require.True(t, client.IsConflict(err))
}

func TestRetryOnConflictOtherErrorStops(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.MustAddHost(sim.HostSpec{Name: "h"})
	n := 0
	var final error
	w.After(0, "start", func() {
		client.RetryOnConflict(h, client.DefaultRetry, func(done func(error)) { n++; done(client.ErrNoAnswer) },
			func(err error) { final = err })
	})
	w.RunFor(time.Second)
	require.Equal(t, 1, n)
	require.ErrorIs(t, final, client.ErrNoAnswer)
}

func TestDefaultBackoffGrows(t *testing.T) {
	times, err := retryTimes(t, client.DefaultBackoff, 100)
	require.True(t, client.IsConflict(err))
	require.Len(t, times, 4)
	base := 10 * time.Millisecond
	for i := 1; i < len(times); i++ {
		d := times[i].Sub(times[i-1])
		require.GreaterOrEqual(t, d, base)
		require.Less(t, d, base+base/10)
		base *= 5
	}
}

// TestRetryOnConflictNoLostUpdates runs concurrent read-modify-write
// increments through the fake server: every one lands.
func TestRetryOnConflictNoLostUpdates(t *testing.T) {
	e := newEnv(10, 1, client.Config{})
	pods := e.c.Pods("default")
	e.at(0, func() { pods.Create(pod("ctr", nil, "0"), func(model.Object, error) {}) })
	const writers = 4
	var errs []error
	e.at(time.Second, func() {
		for i := 0; i < writers; i++ {
			e.c.RetryOnConflict(client.DefaultRetry, func(done func(error)) {
				pods.Get("ctr", client.GetOptions{}, func(obj model.Object, err error) {
					if err != nil {
						done(err)
						return
					}
					n, _ := strconv.Atoi(client.DefaultValueOf(obj))
					obj.GetObjectMeta().Annotations[client.ValueAnnotation] = strconv.Itoa(n + 1)
					pods.Update(obj, func(_ model.Object, err error) { done(err) })
				})
			}, func(err error) { errs = append(errs, err) })
		}
	})
	e.World.RunFor(5 * time.Second)
	require.Len(t, errs, writers)
	for _, err := range errs {
		require.NoError(t, err)
	}
	var got result
	e.at(0, func() { pods.Get("ctr", client.GetOptions{}, e.rec(&got)) })
	e.World.RunFor(time.Second)
	require.Equal(t, strconv.Itoa(writers), client.DefaultValueOf(got.obj))
	require.Greater(t, e.Server(0).Requests[apiwire.VerbUpdate], writers, "some conflicts happened")
}
