package checks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apptrace"
	"github.com/kubesim/kubesim/trace/proxytrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// request is a request to pod web-1 that ended at its step's time after
// latency ms, routed in state routed.
func request(routed string, latencyMS int64, outcome string) *apptrace.Request {
	return &apptrace.Request{Client: "users", Service: "default/web", Entry: "node-1", Outcome: outcome,
		Latency: latencyMS * int64(time.Millisecond), Pod: "default/web-1", Addr: "10.244.1.2:80", Routed: routed}
}

// TestNoTrafficToUnready judges hand-built traces: a request routed as
// ready to a pod its kubelet reported not ready more than the bound
// before it was sent fails, as does any request kube-proxy routed to an
// endpoint it knew was not ready; within the bound, through the
// terminating fallback, or while a fault (and its recovery) may delay the
// news, a request passes. A run with no request to a pod judges nothing
// and fails.
func TestNoTrafficToUnready(t *testing.T) {
	notReady := &spoketrace.PodReady{Node: "node-2", Pod: "default/web-1", Ready: false}
	ready := &spoketrace.PodReady{Node: "node-2", Pod: "default/web-1", Ready: true}
	for _, tc := range []struct {
		name  string
		steps []step
		fault *sim.Event // a fault event at its time, fed first
		ok    bool
		what  string
	}{
		{"ready pod", []step{at(1000, ready), at(5000, request(proxytrace.StateReady, 10, apptrace.OutcomeOK))}, nil, true, ""},
		{"within the bound", []step{at(1000, ready), at(2000, notReady), at(3500, request(proxytrace.StateReady, 10, apptrace.OutcomeOK))}, nil, true, ""},
		{"beyond the bound", []step{at(1000, ready), at(2000, notReady), at(9000, request(proxytrace.StateReady, 10, apptrace.OutcomeOK))}, nil, false,
			"as ready, 6.99s after its kubelet reported it not ready"},
		{"sent before the report, ended after", []step{at(1000, ready), at(2000, notReady), at(9000, request(proxytrace.StateReady, 7500, apptrace.OutcomeTimeout))}, nil, true, ""},
		{"the terminating fallback", []step{at(2000, notReady), at(9000, request(proxytrace.StateTerminating, 10, apptrace.OutcomeOK))}, nil, true, ""},
		{"routed to a not-ready endpoint", []step{at(1000, ready), at(2000, request(proxytrace.StateNotReady, 10, apptrace.OutcomeOK))}, nil, false,
			"an endpoint its slices say is not ready"},
		{"a fault active", []step{at(2000, notReady), at(9000, request(proxytrace.StateReady, 10, apptrace.OutcomeOK))},
			&sim.Event{At: sim.Time(500 * time.Millisecond), Kind: sim.KindFault, Name: "pause", Host: 3}, true, ""},
		{"no request", []step{at(1000, ready)}, nil, false, ""},
		{"late within BUGGIFY's delays", []step{at(1000, ready), at(2000, notReady), at(2500, buggified(sim.BuggifyEarly429, 1000)),
			at(3000, buggified(sim.BuggifyCacheBehind, 400)), at(5300, request(proxytrace.StateReady, 10, apptrace.OutcomeOK))}, nil, true, ""},
		{"late past BUGGIFY's delays", []step{at(1000, ready), at(2000, notReady), at(2500, buggified(sim.BuggifyEarly429, 1000)),
			at(5500, request(proxytrace.StateReady, 10, apptrace.OutcomeOK))}, nil, false, "as ready, 3.49s after its kubelet reported it not ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewNoTrafficToUnready(NoTrafficToUnreadyOptions{})
			if tc.fault != nil {
				c.Observe(tc.fault)
			}
			r := feed(c, tc.steps...)
			require.Equal(t, tc.ok, r.OK, r.String())
			if tc.what != "" {
				require.Contains(t, r.Offenses[0].What, tc.what)
			}
		})
	}

	// The recovery after a fault heals: a late report is excused within
	// it, and judged after it.
	for _, tc := range []struct {
		sentMS int64
		ok     bool
	}{{60_000, true}, {90_000, false}} {
		c := NewNoTrafficToUnready(NoTrafficToUnreadyOptions{})
		c.Observe(&sim.Event{At: sim.Time(time.Second), Kind: sim.KindFault, Name: "pause", Host: 3})
		c.Observe(&sim.Event{At: sim.Time(2 * time.Second), Kind: sim.KindFault, Name: sim.EventResume, Host: 3})
		r := feed(c, at(3000, notReady), at(tc.sentMS, request(proxytrace.StateReady, 0, apptrace.OutcomeOK)))
		require.Equal(t, tc.ok, r.OK, "sent at %d ms: %s", tc.sentMS, r)
	}
}

// TestServiceAvailability: the success fraction is judged against the
// floor, each failure named; requests to another Service do not count,
// and no request at all fails.
func TestServiceAvailability(t *testing.T) {
	ok := request(proxytrace.StateReady, 10, apptrace.OutcomeOK)
	refused := request(proxytrace.StateReady, 0, apptrace.OutcomeRefused)
	refused.Reason = "not-running"
	other := request(proxytrace.StateReady, 0, apptrace.OutcomeTimeout)
	other.Service = "default/api"

	r := feed(NewServiceAvailability(ServiceFloor{"default/web", 0.75}), at(1, ok), at(2, ok), at(3, ok), at(4, refused), at(5, other))
	require.True(t, r.OK, r.String())
	require.Contains(t, r.Detail, "3 of 4 request(s)")

	r = feed(NewServiceAvailability(ServiceFloor{"default/web", 0.8}), at(1, ok), at(2, ok), at(3, ok), at(4, refused))
	require.False(t, r.OK)
	require.Contains(t, r.Offenses[0].What, "refused (not-running)")

	require.False(t, feed(NewServiceAvailability(ServiceFloor{"default/web", 0.5}), at(1, other)).OK, "nothing judged")

	// Two Services, each against its own floor: one below fails the check.
	r = feed(NewServiceAvailability(ServiceFloor{"default/web", 0.5}, ServiceFloor{"default/api", 0.5}), at(1, ok), at(2, other))
	require.False(t, r.OK)
	require.Contains(t, r.Detail, "0 of 1 request(s) to default/api")
	require.Contains(t, r.Offenses[0].What, "timeout")
}
