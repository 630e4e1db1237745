package nemesis

import (
	"slices"
	"strings"
	"time"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// Figure8Driver is the nemesis of raft-figure-8. Like a Jepsen nemesis it
// watches the cluster (through the trace: Raft states, client calls and the
// messages that carry them) and reacts, steering the cluster through the
// states of the Raft paper's Figure 8 (§5.4.2). With N members and a quorum
// of q, M is the largest side that cannot elect (N-q members: the leader
// L1, plus followers from five members on), R the rest (q members or more):
//
//	(a) once L1 (term t1) is stable, the nemesis waits for a client write
//	    heading for M and at that moment cuts M off, with the clients, from
//	    R (whose members are split up too, so that they elect no one yet):
//	    L1 appends writes of term t1 that only M holds;
//	(b) the clients may reach every member while no side can elect, until
//	    their requests stuck in (a) have timed out. Then R is joined up and
//	    elects C (term t2). In the same instant, before C sends anything,
//	    C is cut off one way from every member, but not from the clients:
//	    it appends client writes of term t2 that only it holds. Then C
//	    crashes;
//	(c) the clients are cut off (so no one writes an entry of a newer term),
//	    M's links are slowed by 50 ms, and M and R are joined. M's longer
//	    log wins an election (term t3), and its leader replicates the
//	    term-t1 entries to R. The moment a member of M reports a commit
//	    index past what was committed before (a), M is isolated, so that
//	    its appends never tell R the new commit index;
//	(d) C restarts: its last log term t2 beats R's t1, so it wins (term t4)
//	    with R's votes and replicates its term-t2 entries over the term-t1
//	    ones. Then everything heals and every member restarts.
//
// Correct Raft is safe throughout: in (c) the leader of term t3 commits the
// old entries only together with an entry of its own term, which R then
// holds, so in (d) R does not vote for C. Without the current-term commit
// rule, and without the empty entry a new leader appends (which Figure 8
// does not have), (c) commits entries that (d) overwrites.
//
// Every step waits for what it needs with a deadline, then retries (another
// leader in (a), another election in (b)) or moves on; when no writer would
// reach M, it steers clients or leadership with a short isolation. By
// faultEnd it has healed the network and restarted every member. It needs
// three members or more, and does nothing otherwise.
func Figure8Driver(c *Cluster, rng *sim.Stream, faultEnd time.Duration) {
	if len(c.Members) < 3 {
		return
	}
	f := &figure8{c: c, w: c.World, rng: rng, end: sim.Time(faultEnd), members: c.Members}
	f.served = make([]int, len(c.Members))
	for _, m := range c.Members {
		h, _ := f.w.HostByName(m)
		f.memberHosts = append(f.memberHosts, h.ID())
	}
	for _, name := range c.Clients {
		if strings.HasPrefix(name, "client-") {
			h, _ := f.w.HostByName(name)
			f.writerHosts = append(f.writerHosts, h.ID())
		}
	}
	f.endpoint = make([]string, len(f.writerHosts))
	f.writing = make([]bool, len(f.writerHosts))
	f.inFlight = map[uint64]bool{}
	f.w.Subscribe(f.observe)
	f.w.At(sim.Time(figure8Start), "figure8", f.stepA)
	f.w.At(f.end, "figure8-finish", f.finish)
}

// Timing of the nemesis.
const (
	figure8Start = 10 * time.Second       // a stable leader under load
	figure8Poll  = 10 * time.Millisecond  // how often it looks at the cluster
	figure8Delay = 50 * time.Millisecond  // extra delay on M's links in (c)
	figure8Tail  = 25 * time.Second       // the steps after (a) take at most this
	figure8Calm  = 8 * time.Second        // after a disturbance: clients' timeouts expire
	figure8Fsync = 150 * time.Millisecond // for writes to be appended and synced
)

type figure8 struct {
	c    *Cluster
	w    *sim.World
	rng  *sim.Stream
	end  sim.Time
	done bool
	// stage counts the steps taken; a timer of an older stage does nothing.
	stage int

	members     []string
	memberHosts []sim.HostID
	writerHosts []sim.HostID // the client-* hosts, which write
	// What the trace told the nemesis.
	endpoint  []string        // per writer: the member it last sent a request to
	writing   []bool          // per writer: its operation in progress is a write
	inFlight  map[uint64]bool // writes sent and not yet delivered, by message ID
	served    []int           // per member: writes delivered to it
	maxCommit uint64          // the highest commit index any member reported
	// react, when set, sees every RaftState as it happens, and onWrite
	// every write a client sends to a member.
	react   func(st *etcdtrace.RaftState)
	onWrite func(member string)

	// The cast.
	old    []string // M: L1 and, with five members or more, followers
	rest   []string // R and C
	cm     string   // C
	k0     uint64   // committed before (a): M's entries of term t1 lie above
	tries  int      // elections of C tried in (b)
	steers int      // times stepA had to steer leadership or clients
}

// observe follows the trace.
func (f *figure8) observe(e *sim.Event) {
	switch e.Kind {
	case sim.KindSend:
		if e.Port == etcd.ClientPort {
			if wi := slices.Index(f.writerHosts, e.Host); wi >= 0 {
				if mi := slices.Index(f.memberHosts, e.Peer); mi >= 0 {
					f.endpoint[wi] = f.members[mi]
					if f.writing[wi] {
						f.inFlight[e.ID] = true
						if f.onWrite != nil && !f.done {
							f.onWrite(f.members[mi])
						}
					}
				}
			}
		}
	case sim.KindDeliver, sim.KindDrop:
		if f.inFlight[e.ID] {
			delete(f.inFlight, e.ID)
			if mi := slices.Index(f.memberHosts, e.Host); mi >= 0 && e.Kind == sim.KindDeliver {
				f.served[mi]++
			}
		}
	case sim.KindNode:
		if call, ok := e.Data.(*etcdtrace.Call); ok {
			if wi := slices.Index(f.writerHosts, e.Host); wi >= 0 {
				f.writing[wi] = call.Kind.Writes()
			}
		}
		if st, ok := e.Data.(*etcdtrace.RaftState); ok {
			f.maxCommit = max(f.maxCommit, st.Commit)
			if f.react != nil && !f.done {
				f.react(st)
			}
		}
	}
}

// after runs fn after d, unless the driver finished or moved to another
// stage meanwhile.
func (f *figure8) after(d time.Duration, fn func()) {
	stage := f.stage
	f.w.After(d, "figure8", func() {
		if !f.done && f.stage == stage {
			fn()
		}
	})
}

// next moves to a new stage (cancelling the timers of the old one) and
// runs fn now.
func (f *figure8) next(fn func()) {
	f.stage++
	f.react, f.onWrite = nil, nil
	fn()
}

// poll checks cond every figure8Poll until it holds or the timeout passes,
// then calls then with whether it held.
func (f *figure8) poll(timeout time.Duration, cond func() bool, then func(ok bool)) {
	deadline := f.w.Now().Add(timeout)
	var check func()
	check = func() {
		switch {
		case cond():
			then(true)
		case f.w.Now() >= deadline:
			then(false)
		default:
			f.after(figure8Poll, check)
		}
	}
	check()
}

func (f *figure8) inject(kind sim.FaultKind, targets ...[]string) {
	f.w.Inject(sim.Fault{At: time.Duration(f.w.Now()), Kind: kind, Targets: targets})
}

// network heals every cut and flaky link, then partitions the groups
// (hosts in no group keep their links).
func (f *figure8) network(groups ...[]string) {
	f.inject(sim.FaultHeal)
	if len(groups) >= 2 {
		f.inject(sim.FaultPartition, groups...)
	}
}

func (f *figure8) servedBy(names []string) int {
	n := 0
	for _, m := range names {
		n += f.served[slices.Index(f.members, m)]
	}
	return n
}

func (f *figure8) isLeader(m string) bool {
	h, _ := f.w.HostByName(m)
	return h.Up() && f.c.Leader.State(m).Role == "leader"
}

func singletons(names []string) [][]string {
	var out [][]string
	for _, n := range names {
		out = append(out, []string{n})
	}
	return out
}

// stepA waits for a leader with a writer attached to its side, then cuts
// that side, M, off with the clients, so that M's log grows in term t1.
func (f *figure8) stepA() {
	f.next(func() {})
	if f.w.Now().Add(figure8Tail) > f.end {
		return // too late to start: finish heals what is left
	}
	l1, ok := f.c.Leader.Leader()
	allUp := true
	for _, m := range f.members {
		h, _ := f.w.HostByName(m)
		allUp = allUp && h.Up()
	}
	if !ok || !allUp {
		f.after(500*time.Millisecond, f.stepA)
		return
	}
	// M is the largest side that cannot elect: N - quorum members, the
	// leader and those followers with the most writers attached.
	size := len(f.members) - (len(f.members)/2 + 1)
	attached := func(m string) int {
		n := 0
		for _, ep := range f.endpoint {
			if ep == m {
				n++
			}
		}
		return n
	}
	var others []string
	for _, m := range f.members {
		if m != l1 {
			others = append(others, m)
		}
	}
	f.rng.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	slices.SortStableFunc(others, func(a, b string) int { return attached(b) - attached(a) })
	f.old = append([]string{l1}, others[:size-1]...)
	f.rest = slices.Clone(others[size-1:])
	writers := 0
	for _, m := range f.old {
		writers += attached(m)
	}
	if writers == 0 {
		f.steer(l1, attached)
		return
	}
	// Cut M off just as a write heads for it, so that the write (and those
	// that follow) is appended in term t1 and reaches no one else.
	f.onWrite = func(member string) {
		if slices.Contains(f.old, member) {
			f.onWrite = nil
			f.after(0, f.cutM)
		}
	}
	f.after(3*time.Second, func() { f.steer(l1, attached) })
}

// steer moves clients or leadership when no writer would reach M, then
// lets stepA try again. A client fails over to the next member in the
// members' order, so if writers are attached to the member just before the
// leader, isolating that member for a while sends them to the leader;
// otherwise it isolates the leader, and another member will lead.
func (f *figure8) steer(l1 string, attached func(string) int) {
	f.next(func() {
		i := slices.Index(f.members, l1)
		target := f.members[(i+len(f.members)-1)%len(f.members)]
		if attached(target) == 0 {
			target = l1
		}
		f.w.Inject(sim.Fault{At: time.Duration(f.w.Now()), Kind: sim.FaultIsolate, Targets: [][]string{{target}}, For: 2 * time.Second})
		f.after(figure8Calm, f.stepA)
	})
}

// cutM partitions M and the clients from R, whose members are split up as
// well, so that R elects no one before (b).
func (f *figure8) cutM() {
	f.next(func() {
		f.k0 = f.maxCommit
		base := f.servedBy(f.old)
		f.network(append([][]string{append(slices.Clone(f.old), f.c.Clients...)}, singletons(f.rest)...)...)
		f.poll(time.Second, func() bool { return f.servedBy(f.old)-base >= 2 }, func(bool) {
			if f.servedBy(f.old) == base {
				f.network() // nothing reached M: try again later
				f.after(figure8Calm, f.stepA)
				return
			}
			f.after(figure8Fsync, f.stepB)
		})
	})
}

// stepB lets the clients reach every member while no side can elect, until
// their requests stuck in (a) have timed out; then R may elect C.
func (f *figure8) stepB() {
	f.next(func() {
		f.k0 = max(f.k0, f.maxCommit) // nothing more can commit: M is a minority
		f.network(append([][]string{f.old}, singletons(f.rest)...)...)
		f.tries = 0
		f.after(figure8Calm, f.electC)
	})
}

// electC joins R and reacts to the first leader it elects: at once, before
// the leader sends anything, it may reach no member, only the clients.
func (f *figure8) electC() {
	f.next(func() {
		f.tries++
		f.network(f.old, f.rest)
		f.react = func(st *etcdtrace.RaftState) {
			if st.Role == "leader" && slices.Contains(f.rest, st.Member) {
				f.react = nil
				cm := st.Member
				f.after(0, func() { f.cutC(cm) })
			}
		}
		f.after(6*time.Second, f.finishEarly) // R never elected anyone
	})
}

// cutC isolates C from the members one way and waits for client requests
// to reach it.
func (f *figure8) cutC(cm string) {
	f.next(func() {
		f.cm = cm
		var others []string
		for _, m := range f.members {
			if m != cm {
				others = append(others, m)
			}
		}
		f.inject(sim.FaultOneWay, []string{cm}, others)
		mi := slices.Index(f.members, cm)
		base := f.served[mi]
		f.poll(1500*time.Millisecond, func() bool { return f.served[mi]-base >= 2 || !f.isLeader(cm) }, func(bool) {
			if f.served[mi] == base && f.tries < 3 {
				f.electC() // C appended nothing: let R elect again
				return
			}
			f.after(figure8Fsync, f.stepC)
		})
	})
}

// stepC crashes C, cuts the clients off and reconnects M with R; it reacts
// to the first commit past k0 on M by isolating M's members.
func (f *figure8) stepC() {
	f.next(func() {
		f.inject(sim.FaultCrash, []string{f.cm})
		f.network(f.c.Clients, f.members)
		f.w.Inject(sim.Fault{At: time.Duration(f.w.Now()), Kind: sim.FaultFlaky, Targets: [][]string{f.old}, Delay: figure8Delay})
		f.react = func(st *etcdtrace.RaftState) {
			if st.Commit > f.k0 && slices.Contains(f.old, st.Member) {
				f.react = nil
				f.after(0, f.stepD)
			}
		}
		f.after(12*time.Second, f.stepD)
	})
}

// stepD keeps M isolated and the clients cut off, and restarts C, which
// can win only if R holds no entry newer than its own.
func (f *figure8) stepD() {
	f.next(func() {
		groups := [][]string{f.c.Clients, f.rest}
		f.network(append(groups, singletons(f.old)...)...)
		f.inject(sim.FaultRestart, []string{f.cm})
		f.poll(10*time.Second, func() bool {
			for _, m := range f.rest {
				if f.c.Leader.State(m).Commit > f.k0 {
					return true
				}
			}
			return false
		}, func(bool) { f.after(time.Second, f.finishEarly) })
	})
}

// finishEarly ends the nemesis before faultEnd.
func (f *figure8) finishEarly() { f.finish() }

// finish heals the network and restarts every member; the driver is done.
func (f *figure8) finish() {
	if f.done {
		return
	}
	f.done = true
	f.react, f.onWrite = nil, nil
	f.inject(sim.FaultHeal)
	f.inject(sim.FaultRestart, f.members)
}
