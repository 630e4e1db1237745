package checks

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// TestNoWritesWithoutQuorum: with members 1 to 3, a quorum is down while
// two of them are crashed or frozen; a write invoked then must not succeed
// before a quorum is back.
func TestNoWritesWithoutQuorum(t *testing.T) {
	sec := func(s float64) sim.Time { return sim.Time(s * float64(time.Second)) }
	feed := func(c Check, evs ...sim.Event) Result {
		for i := range evs {
			evs[i].Seq = uint64(i)
			if evs[i].Kind == 0 {
				evs[i].Kind = sim.KindNode
			}
			c.Observe(&evs[i])
		}
		return c.Finish()
	}
	fault := func(at float64, host sim.HostID, name string) sim.Event {
		return sim.Event{At: sec(at), Kind: sim.KindFault, Host: host, Name: name}
	}
	call := func(at float64, op uint64, kind etcdtrace.OpKind) sim.Event {
		return sim.Event{At: sec(at), Data: &etcdtrace.Call{Client: "c", Op: op, Kind: kind, Key: "k"}}
	}
	ret := func(at float64, op uint64, out etcdtrace.Outcome) sim.Event {
		return sim.Event{At: sec(at), Data: &etcdtrace.Return{Client: "c", Op: op, Outcome: out}}
	}
	// A quorum is down from 10 s to 20 s: members 1 and 2 crash, 1 restarts.
	down := []sim.Event{fault(10, 1, "crash"), fault(10, 2, "torn")}
	up := fault(20, 1, "restart")
	seq := func(evs ...sim.Event) []sim.Event { return evs }
	cases := []struct {
		name    string
		evs     []sim.Event
		ok      bool
		members int // default 3
	}{
		{"writes inside time out", seq(down[0], down[1], call(11, 1, etcdtrace.OpPut), ret(16, 1, etcdtrace.OutcomeUnknown), up), true, 0},
		{"a write invoked before the window may finish in it", seq(call(9.9, 1, etcdtrace.OpPut), down[0], down[1], ret(10.1, 1, etcdtrace.OutcomeOK), up), true, 0},
		{"a write inside succeeding after the window is fine", seq(down[0], down[1], call(19, 1, etcdtrace.OpPut), up, ret(21, 1, etcdtrace.OutcomeOK)), true, 0},
		{"reads are not writes", seq(down[0], down[1], call(11, 1, etcdtrace.OpGet), ret(12, 1, etcdtrace.OutcomeOK), up), true, 0},
		{"one member down leaves a quorum", seq(down[0], call(11, 1, etcdtrace.OpPut), ret(12, 1, etcdtrace.OutcomeOK)), true, 0},
		{"a host that is no member does not count", seq(down[0], fault(10, 9, "crash"), call(11, 1, etcdtrace.OpPut), ret(12, 1, etcdtrace.OutcomeOK)), true, 0},
		{"a write that succeeds without quorum fails the check", seq(down[0], down[1], call(11, 1, etcdtrace.OpCAS), ret(12, 1, etcdtrace.OutcomeOK)), false, 0},
		{"frozen members count as down", seq(fault(10, 2, "pause"), fault(10, 3, "pause"), call(11, 1, etcdtrace.OpDelete), ret(12, 1, etcdtrace.OutcomeOK)), false, 0},
		{"a resume brings a quorum back", seq(fault(10, 2, "pause"), fault(10, 3, "pause"), call(11, 1, etcdtrace.OpPut), fault(12, 3, "resume"), ret(12.5, 1, etcdtrace.OutcomeOK)), true, 0},
		{"a crash ends a pause, and the restart brings the member back", seq(fault(10, 2, "pause"), fault(11, 2, "crash"), fault(10, 3, "crash"), fault(12, 2, "restart"), call(13, 1, etcdtrace.OpPut), ret(14, 1, etcdtrace.OutcomeOK)), true, 0},
		{"a second window is judged apart from the first", seq(down[0], down[1], call(11, 1, etcdtrace.OpPut), up, fault(25, 1, "crash"), ret(26, 1, etcdtrace.OutcomeOK)), true, 0},
		// Four members, quorum 3: 1 and 4 are down when the write comes;
		// 3 logs it and crashes, 1 comes back and logs it: three logs.
		{"members up at different moments make a quorum", seq(fault(10, 1, "crash"), fault(10, 4, "crash"), call(11, 1, etcdtrace.OpDelete),
			fault(11.4, 3, "crash"), fault(11.5, 1, "restart"), ret(11.6, 1, etcdtrace.OutcomeOK)), true, 4},
		{"two of four up throughout cannot commit", seq(fault(10, 1, "crash"), fault(10, 4, "crash"), call(11, 1, etcdtrace.OpDelete),
			fault(11.4, 3, "crash"), ret(11.6, 1, etcdtrace.OutcomeOK)), false, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			members := []sim.HostID{1, 2, 3}
			if c.members == 4 {
				members = append(members, 4)
			}
			r := feed(NewNoWritesWithoutQuorum(members), c.evs...)
			require.Equal(t, c.ok, r.OK, r.String())
			if !c.ok {
				require.NotEmpty(t, r.Offenses)
			}
		})
	}
}

// TestNoWritesWithoutQuorumFollowsMembership: members etcd-1 to etcd-3;
// at 5 s a member applies the configuration {etcd-2, etcd-3, etcd-4}
// (etcd-4 added and promoted, etcd-1 removed). Then the quorum is two of
// those three: etcd-1 powered off no longer counts, etcd-4 does.
func TestNoWritesWithoutQuorumFollowsMembership(t *testing.T) {
	sec := func(s float64) sim.Time { return sim.Time(s * float64(time.Second)) }
	hostID := func(name string) (sim.HostID, bool) {
		var id int
		_, err := fmt.Sscanf(name, "etcd-%d", &id)
		return sim.HostID(id), err == nil
	}
	fault := func(at float64, host sim.HostID, name string) sim.Event {
		return sim.Event{At: sec(at), Kind: sim.KindFault, Host: host, Name: name}
	}
	conf := func(at float64, index uint64, voters string) sim.Event {
		return sim.Event{At: sec(at), Kind: sim.KindNode, Host: 2, Data: &etcdtrace.Membership{Member: "etcd-2", Index: index, Change: etcdtrace.MemberRemove, Voters: voters}}
	}
	write := func(at float64, op uint64) []sim.Event {
		return []sim.Event{
			{At: sec(at), Kind: sim.KindNode, Data: &etcdtrace.Call{Client: "c", Op: op, Kind: etcdtrace.OpPut, Key: "k"}},
			{At: sec(at + 0.1), Kind: sim.KindNode, Data: &etcdtrace.Return{Client: "c", Op: op, Outcome: etcdtrace.OutcomeOK}},
		}
	}
	changed := conf(5, 10, "etcd-2,etcd-3,etcd-4")
	cases := []struct {
		name   string
		follow bool
		evs    []sim.Event
		ok     bool
	}{
		{"the removed member and one voter down leave a quorum", true,
			append([]sim.Event{changed, fault(10, 1, "crash"), fault(11, 2, "crash")}, write(12, 1)...), true},
		{"without following, the removed member still counts", false,
			append([]sim.Event{changed, fault(10, 1, "crash"), fault(11, 2, "crash")}, write(12, 1)...), false},
		{"the added voter counts: two of the new three down", true,
			append([]sim.Event{changed, fault(10, 4, "crash"), fault(11, 2, "crash")}, write(12, 1)...), false},
		{"an older configuration applied later changes nothing", true,
			append([]sim.Event{changed, conf(6, 9, "etcd-1,etcd-2,etcd-3"), fault(10, 1, "crash"), fault(11, 2, "crash")}, write(12, 1)...), true},
		{"a voter back up before the write returns makes a quorum", true,
			append([]sim.Event{changed, fault(10, 4, "crash"), fault(11, 2, "crash"), write(12, 1)[0], fault(12.05, 4, "restart")}, write(12, 1)[1]), true},
	}
	// The quorum is lost for good at 10 s (etcd-1 and etcd-2 wiped,
	// etcd-3 off); at 20 s the backup is restored into a new cluster on
	// fresh hosts 4 to 6, which start at 21 s.
	restore := func(at float64, host sim.HostID, cluster uint64) sim.Event {
		return sim.Event{At: sec(at), Kind: sim.KindNode, Host: host, Data: &etcdtrace.Restore{Member: fmt.Sprintf("etcd-%d", host), ClusterID: cluster}}
	}
	lost := []sim.Event{fault(10, 1, "wipe"), fault(10, 2, "wipe"), fault(10, 3, "crash"),
		fault(15, 4, "crash"), fault(15, 5, "crash"), fault(15, 6, "crash")}
	restored := append(append([]sim.Event(nil), lost...), restore(20, 4, 7), restore(20, 5, 7), restore(20, 6, 7),
		fault(21, 4, "restart"), fault(21, 5, "restart"), fault(21, 6, "restart"))
	cases = append(cases, []struct {
		name   string
		follow bool
		evs    []sim.Event
		ok     bool
	}{
		{"a write to the cluster restored on fresh hosts counts their quorum", true, append(slices.Clone(restored), write(22, 1)...), true},
		{"without following, the lost members still count", false, append(slices.Clone(restored), write(22, 1)...), false},
		{"restored but not started: no quorum", true, append(slices.Clone(restored[:len(lost)+3]), write(20.5, 1)...), false},
		{"a second cluster replaces the first", true, append(slices.Clone(restored), restore(30, 1, 8), write(31, 1)[0], fault(31, 1, "restart"), write(31, 1)[1]), true},
	}...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chk := NewNoWritesWithoutQuorum([]sim.HostID{1, 2, 3})
			if c.follow {
				chk.FollowMembership(hostID)
			}
			for i := range c.evs {
				c.evs[i].Seq = uint64(i)
				chk.Observe(&c.evs[i])
			}
			r := chk.Finish()
			require.Equal(t, c.ok, r.OK, r.String())
		})
	}
}
