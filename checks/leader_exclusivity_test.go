package checks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/controllers/manager"
	"github.com/kubesim/kubesim/nodes/scheduler"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

const lxComp = "kube-controller-manager"

// Replica "cm-<h>" of kube-controller-manager runs on host h.
func lxID(h sim.HostID) string { return "cm-" + string(rune('0'+h)) }

func lxLead(ms int64, h sim.HostID, leading bool) sev {
	return sev{ms, h, sim.KindNode, "", &spoketrace.Leading{Component: lxComp, Identity: lxID(h), Leading: leading}}
}

func lxRenew(ms int64, h sim.HostID) sev {
	return sev{ms, h, sim.KindNode, "", &spoketrace.LeaderRenewed{Component: lxComp, Identity: lxID(h)}}
}

func lxWrite(ms int64, h sim.HostID) sev {
	return sev{ms, h, sim.KindNode, "", &spoketrace.LeaderWrite{Component: lxComp, Identity: lxID(h), Verb: "create", Resource: "pods", Key: "default/web-x"}}
}

// lxRec is the Lease record naming h's replica (0: nobody), first
// applied by an etcd member (host 9) at ms, at revision rev.
func lxRec(ms int64, rev int64, h sim.HostID) sev {
	holder := ""
	if h != 0 {
		holder = lxID(h)
	}
	l := &model.Lease{Spec: model.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: model.Ptr(int32(15))}}
	l.Name, l.Namespace = "kube-controller-manager", "kube-system"
	data, err := model.Encode(l)
	if err != nil {
		panic(err)
	}
	return sev{ms, 9, sim.KindNode, "", &etcdtrace.Apply{Member: "etcd-1", Rev: rev, Changes: []etcdtrace.Change{{Type: etcdtrace.ChangePut,
		Key: "/registry/leases/kube-system/kube-controller-manager", Value: string(data), ModRev: rev}}}}
}

func lxDrift(ms int64, h sim.HostID, rate float64) sev {
	return sev{ms, h, sim.KindFault, string(sim.FaultClockDrift), &sim.FaultDetail{Rate: rate}}
}

// lxLeads is replica 1 acquiring at 1 s (record at revision 1) and
// renewing at 3 s (revision 2), then evs.
func lxLeads(evs ...sev) []sev {
	return append([]sev{lxRec(1000, 1, 1), lxLead(1000, 1, true), lxRec(3000, 2, 1), lxRenew(3000, 1)}, evs...)
}

func TestLeaderExclusivity(t *testing.T) {
	cases := []struct {
		name    string
		evs     []sev
		ok      bool
		want    string
		zombies float64
	}{
		{"a leader writes between renewals", lxLeads(lxWrite(5000, 1), lxRenew(5000, 1), lxWrite(17000, 1)),
			true, "2 leader writes, 0 takeovers", 0},
		{"a write at the renew deadline after acquiring", []sev{lxRec(1000, 1, 1), lxLead(1000, 1, true), lxWrite(11000, 1)},
			true, "1 leader writes", 0},
		{"a candidate takes over after the lease duration", lxLeads(lxLead(15000, 1, false), lxRec(18000, 3, 2), lxLead(18000, 2, true), lxWrite(18500, 2)),
			true, "1 leader writes, 1 takeovers", 0},
		{"a slow leader acts for 12 s of its own clock, 20 s of the world's", append([]sev{lxDrift(0, 1, 0.6)}, lxLeads(lxWrite(23000, 1))...),
			true, "1 leader writes", 0},
		{"a fast candidate takes over after 15 s of its own clock, 8 s of the world's", append([]sev{lxDrift(0, 2, 2)}, lxLeads(lxRec(11000, 3, 2), lxLead(11000, 2, true))...),
			true, "1 takeovers", 0},
		{"a deposed leader whose renewal was answered late writes within its deadline: counted", lxLeads(lxRec(18001, 3, 2), lxLead(18002, 2, true), lxRenew(19000, 1), lxWrite(25000, 1)),
			true, "1 writes by a deposed leader while another held the Lease (no fencing), the first cm-1's create pods default/web-x at 25.000000s, 7.0 s after cm-2 took the Lease", 1},
		{"a leader frozen within a round sends its overdue work as it resumes", []sev{lxRec(1000, 1, 1), lxLead(1000, 1, true), hostFault(5000, 1, "pause"),
			lxRec(20000, 3, 2), lxLead(20000, 2, true), hostFault(30000, 1, "resume"), lxWrite(30000, 1), lxLead(30000, 1, false)},
			true, "1 writes by a deposed leader while another held the Lease (no fencing), the first cm-1's create pods default/web-x at 30.000000s, 10.0 s after cm-2 took the Lease", 1},
		{"a leader frozen between rounds resumes into a fresh round of 10 s", lxLeads(hostFault(4000, 1, "pause"), lxRec(19000, 3, 2), lxLead(19000, 2, true),
			hostFault(30000, 1, "resume"), lxWrite(30001, 1), lxWrite(40000, 1)),
			true, "2 writes by a deposed leader", 2},
		{"a crash ends a pause: the restarted leader's deadline is its own", []sev{hostFault(500, 1, "pause"), hostFault(600, 1, "crash"), hostFault(700, 1, "restart"),
			lxRec(1000, 1, 1), lxLead(1000, 1, true), lxRec(3000, 2, 1), lxRenew(3000, 1), lxWrite(4000, 1)},
			true, "1 leader writes", 0},
		{"drifts of different rates overlap and one ends: the clock is unknown, not judged", append([]sev{lxDrift(0, 1, 0.5), lxDrift(0, 1, 2), hostFault(500, 1, "clock-drift-healed")},
			lxLeads(lxWrite(60000, 1))...),
			true, "1 leader writes", 0},
		{"a replica of another component is not this one's",
			[]sev{{1000, 1, sim.KindNode, "", &spoketrace.LeaderWrite{Component: "other", Identity: "x"}}},
			true, "0 leader writes", 0},

		{"writes past the renew deadline", lxLeads(lxWrite(15001, 1)),
			false, "cm-1 sent create pods default/web-x as leader of kube-controller-manager past its renew deadline at 15.000000s: 12.001 s (on its clock) after its last renewal at 3.000000s", 0},
		{"writes past the renew deadline after acquiring", []sev{lxRec(1000, 1, 1), lxLead(1000, 1, true), lxWrite(11001, 1)},
			false, "past its renew deadline at 11.000000s: 10.001 s (on its clock) after its last acquisition at 1.000000s", 0},
		{"a slow leader past 10 s of its own clock", append([]sev{lxDrift(0, 1, 0.5), lxRec(1000, 1, 1), lxLead(1000, 1, true)}, lxWrite(21002, 1)),
			false, "past its renew deadline at 21.000000s: 10.001 s (on its clock)", 0},
		{"a renewal after stepping down does not extend it", lxLeads(lxLead(4000, 1, false), lxRenew(5000, 1), lxWrite(6000, 1)),
			false, "cm-1 sent create pods default/web-x as leader of kube-controller-manager after it stopped leading at 4.000000s (it stepped down)", 0},
		{"writes after its host crashed", lxLeads(hostFault(4000, 1, "crash"), lxWrite(4500, 1)),
			false, "after it stopped leading at 4.000000s (its host crashed)", 0},
		{"writes without ever leading", []sev{lxRec(1000, 1, 2), lxWrite(2000, 1)},
			false, "cm-1 sent create pods default/web-x as leader of kube-controller-manager without ever holding its Lease; cm-2 had held the Lease since 1.000000s", 1},
		{"a deposed leader past its deadline", lxLeads(lxRec(18001, 3, 2), lxLead(18002, 2, true), lxWrite(20000, 1)),
			false, "past its renew deadline at 15.000000s: 17.000 s (on its clock) after its last renewal at 3.000000s; cm-2 had held the Lease since 18.001000s", 1},
		{"a crash ends a pause: the restarted leader's deadline is its own, and passes", []sev{hostFault(500, 1, "pause"), hostFault(600, 1, "crash"), hostFault(700, 1, "restart"),
			lxRec(1000, 1, 1), lxLead(1000, 1, true), lxWrite(11001, 1)},
			false, "past its renew deadline at 11.000000s", 0},
		{"a candidate takes over before the lease duration", lxLeads(lxRec(17999, 3, 2), lxLead(18000, 2, true)),
			false, "cm-2 took the Lease kube-system/kube-controller-manager from cm-1 14.999 s (on its clock) after cm-1's last record was committed at 3.000000s: client-go takes a Lease over only once the record has not changed for its lease duration (15s) since it saw it", 0},
		{"a candidate known before takes over early", lxLeads(lxLead(500, 2, false), lxRec(5000, 3, 2)),
			false, "cm-2 took the Lease kube-system/kube-controller-manager from cm-1 2.000 s", 0},
		{"a slow candidate takes over after 15 s of the world's, 7.5 s of its own", append([]sev{lxDrift(0, 2, 0.5)}, lxLeads(lxRec(18000, 3, 2), lxLead(18000, 2, true))...),
			false, "cm-2 took the Lease kube-system/kube-controller-manager from cm-1 7.500 s (on its clock)", 0},
		{"a frozen leader's pause began past its deadline", lxLeads(hostFault(16000, 1, "pause"), hostFault(30000, 1, "resume"), lxWrite(30000, 1)),
			false, "cm-1 sent create pods default/web-x as leader of kube-controller-manager past its renew deadline at 15.000000s: 27.000 s", 0},
		{"a leader frozen within a round writes after the instant it resumed", []sev{lxRec(1000, 1, 1), lxLead(1000, 1, true), hostFault(5000, 1, "pause"),
			hostFault(30000, 1, "resume"), lxWrite(30001, 1)},
			false, "past its renew deadline at 30.000000s: 29.001 s (on its clock) after its last acquisition", 0},
		{"a leader frozen between rounds writes past its fresh round", lxLeads(hostFault(4000, 1, "pause"), hostFault(30000, 1, "resume"), lxWrite(40001, 1)),
			false, "past its renew deadline at 40.000000s", 0},
		{"a frozen leader writes at its resume after stepping down", lxLeads(hostFault(4000, 1, "pause"), hostFault(30000, 1, "resume"), lxLead(30000, 1, false), lxWrite(30000, 1)),
			false, "after it stopped leading at 30.000000s (it stepped down)", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewLeaderExclusivity(LeaderExclusivityOptions{})
			r := feedSpoke(c, tc.evs...)
			require.Equal(t, tc.ok, r.OK, r.String())
			if !tc.ok {
				require.NotEmpty(t, r.Offenses)
			}
			require.Contains(t, r.String(), tc.want)
			require.Equal(t, tc.zombies, c.Measures()["zombie_writes"])
		})
	}
}

// TestLeaderExclusivityOverlap: leader_overlap_s is the longest time from
// a takeover to a write of the deposed leader, -1 without one.
func TestLeaderExclusivityOverlap(t *testing.T) {
	c := NewLeaderExclusivity(LeaderExclusivityOptions{})
	feedSpoke(c, lxLeads(lxWrite(5000, 1))...)
	require.Equal(t, -1.0, c.Measures()["leader_overlap_s"])
	c = NewLeaderExclusivity(LeaderExclusivityOptions{})
	feedSpoke(c, lxLeads(lxRec(18001, 3, 2), lxLead(18002, 2, true), lxRenew(19000, 1), lxWrite(20000, 1), lxWrite(22500, 1))...)
	require.InDelta(t, 4.499, c.Measures()["leader_overlap_s"], 1e-9)
}

// TestHostClocks: the clocks follow the drifts in force, their product
// while they overlap, and cannot tell once an ambiguous one ends.
func TestHostClocks(t *testing.T) {
	c := newHostClocks()
	for _, e := range []sim.Event{
		{At: secs(10), Kind: sim.KindFault, Host: 1, Name: "clock-drift", Data: &sim.FaultDetail{Rate: 0.5}},
		{At: secs(20), Kind: sim.KindFault, Host: 1, Name: "clock-drift", Data: &sim.FaultDetail{Rate: 0.5}},
		{At: secs(30), Kind: sim.KindFault, Host: 1, Name: "clock-drift-healed"},
		{At: secs(40), Kind: sim.KindFault, Host: 1, Name: "clock-drift-healed"},
		{At: secs(50), Kind: sim.KindFault, Host: 2, Name: "clock-drift", Data: &sim.FaultDetail{Rate: 2}},
		{At: secs(50), Kind: sim.KindFault, Host: 2, Name: "clock-drift", Data: &sim.FaultDetail{Rate: 0.5}},
		{At: secs(60), Kind: sim.KindFault, Host: 2, Name: "clock-drift-healed"},
		{At: secs(70), Kind: sim.KindFault, Host: 2, Name: "clock-drift-healed"},
		{At: secs(50), Kind: sim.KindFault, Host: 3, Name: "clock-drift-unresolved"},
	} {
		c.observe(&e)
	}
	el := func(h sim.HostID, a, b float64) float64 {
		d, ok := c.elapsed(h, secs(a), secs(b))
		if !ok {
			return -1
		}
		return d.Seconds()
	}
	require.Equal(t, 32.5, el(1, 0, 50), "10 s at 1, 0.5, 0.25, 0.5, 1")
	require.Equal(t, 12.5, el(1, 10, 40))
	require.Equal(t, 7.5, el(1, 15, 35))
	require.Equal(t, 10.0, el(2, 50, 60), "2 x 0.5")
	require.Equal(t, -1.0, el(2, 55, 65), "which drift ended at 60 s is unknown")
	require.Equal(t, 10.0, el(2, 70, 80), "none left: the world's rate again")
	require.Equal(t, 10.0, el(3, 40, 50))
	after := func(h sim.HostID, a, d float64) float64 {
		at, ok := c.after(h, secs(a), secsDur(d))
		if !ok {
			return -1
		}
		return time.Duration(at).Seconds()
	}
	require.Equal(t, 50.0, after(1, 0, 32.5))
	require.Equal(t, 40.0, after(1, 10, 12.5))
	require.Equal(t, 56.0, after(2, 55, 1))
	require.Equal(t, -1.0, after(2, 55, 10), "past the ambiguous end")
	require.Equal(t, 90.0, after(2, 70, 20))
	require.Equal(t, 7.0, after(9, 5, 2), "a host without drifts")
}

// TestLeaderExclusivityReleaseWindow: a component that releases its Lease
// on stopping (ReleaseOnCancel, as kube-scheduler) acts on while its
// release runs: client-go's Run cancels OnStartedLeading's context only
// after renew, which calls release last, bounded by a context of
// RenewDeadline (tools/leaderelection/leaderelection.go, Run, renew,
// release). Its writes may go on RenewDeadline past the renew deadline;
// one without release may not, and no write may follow the step-down.
func TestLeaderExclusivityReleaseWindow(t *testing.T) {
	cases := []struct {
		name    string
		release bool
		evs     []sev
		ok      bool
		want    string
	}{
		{"released: a write during the release", true, lxLeads(lxWrite(24000, 1)), true, "1 leader writes"},
		{"released: a write past the release's bound", true, lxLeads(lxWrite(25002, 1)), false,
			"past its renew deadline at 25.000000s: 22.002 s (on its clock) after its last renewal at 3.000000s"},
		{"released: a write after the step-down", true, lxLeads(lxLead(18000, 1, false), lxWrite(19000, 1)), false, "after it stopped leading at 18.000000s"},
		{"not released: a write past the renew deadline", false, lxLeads(lxWrite(16000, 1)), false, "past its renew deadline at 15.000000s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewLeaderExclusivity(LeaderExclusivityOptions{Components: []LeaderComponent{
				{Component: lxComp, Lease: "kube-system/kube-controller-manager", ReleaseOnCancel: tc.release}}})
			r := feedSpoke(c, tc.evs...)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.String(), tc.want)
		})
	}
}

// TestDefaultLeaderComponentsRelease: the check's release settings are
// the components' own.
func TestDefaultLeaderComponentsRelease(t *testing.T) {
	want := map[string]bool{"kube-controller-manager": manager.ReleaseOnCancel, "kube-scheduler": scheduler.ReleaseOnCancel}
	for _, lc := range DefaultLeaderComponents() {
		require.Equal(t, want[lc.Component], lc.ReleaseOnCancel, lc.Component)
	}
}
